/**
 * souk users export ID and souk users erase ID: a user's data (docs/safety.md, GDPR
 * articles 15, 17 and 20).
 */
import { eraseUser, exportUser as exportUserData } from '../../domain/operator/users.js';
import type { Command } from '../command.js';
import { withStore, type CliContext } from '../context.js';
import { cliChange, operatorOf, REASON_OPTION, refusal } from '../operator.js';
import { positiveInteger } from './token.js';

export async function exportUser(ctx: CliContext, idArg: string, reason?: string): Promise<void> {
  const userId = positiveInteger(idArg, 'ID');
  const result = await exportUserData(operatorOf(ctx), cliChange(reason), userId);
  if (!result.ok) throw refusal(result, userId);
  ctx.out(JSON.stringify(result.document, null, 2));
}

export async function eraseUserCommand(ctx: CliContext, idArg: string, reason?: string): Promise<void> {
  const userId = positiveInteger(idArg, 'ID');
  const result = await eraseUser(operatorOf(ctx), cliChange(reason), userId);
  if (!result.ok) throw refusal(result, userId);
  const e = result.erasure;
  ctx.out(
    `user ${userId} erased: ${e.messages} messages emptied (they keep their place in the other side's conversations), ` +
      `${e.favourites} favourites, ${e.devices} devices, ${e.events} events, ${e.blocks} blocks, ${e.reports} reports removed; ` +
      'tokens revoked, sign-in refused',
  );
  if (!e.profileErased) {
    ctx.out(
      "the WordPress account stays: Souk erased the chat, favourites and blocks; the wp_users row and its profile are WordPress's own (Tools > Erase Personal Data)",
    );
  } else ctx.out('profile: "Deleted user", without e-mail, phone or picture');
}

export const usersExportCommand: Command = {
  name: 'users export',
  summary: "write a user's data as one JSON document",
  about:
    'Writes one JSON document to standard output with everything Souk keeps of and for the user: the profile, favourites, blocks, push devices, every conversation they see with every message in it, and the reports they made. Of the other participants, only their id and name (as every conversation shows them).',
  args: [{ name: 'ID', help: "the user's id" }],
  options: REASON_OPTION,
  examples: ['souk users export 7 > user-7.json'],
  run: ({ args: [id], options }) => withStore((ctx) => exportUser(ctx, id!, options.reason)),
};

export const usersEraseCommand: Command = {
  name: 'users erase',
  summary: "erase a user's data",
  about:
    'Erases the user: their favourites, blocks, push devices, tokens, events and the reports they made go; their messages keep their place in the other side\'s conversations with text and attachments removed; the profile becomes "Deleted user" without e-mail, phone or picture; they cannot sign in. Once it has answered, no message from or to them is stored. Running it again is harmless. On a WordPress site the wp_users row stays (WordPress\'s own eraser owns it): Souk erases the chat, favourites and blocks, and says so.',
  args: [{ name: 'ID', help: "the user's id" }],
  options: REASON_OPTION,
  examples: ['souk users erase 7', 'souk users erase 7 --reason "request by e-mail, 2026-11-30"'],
  run: ({ args: [id], options }) => withStore((ctx) => eraseUserCommand(ctx, id!, options.reason)),
};
