/**
 * souk users export ID and souk users erase ID: a user's data (docs/safety.md, GDPR
 * articles 15, 17 and 20).
 */
import { eraseUser, exportUserData, type SafetyRecords, type UserDataDeps } from '../../domain/user-data.js';
import type { Report } from '../../domain/reports.js';
import type { Store } from '../../store/index.js';
import type { Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';
import { closeSessions, deleteUploads, refusal } from './moderation.js';
import { positiveInteger } from './token.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A report as its maker's export shows it: what they reported, why, and the messages as they were then. */
const exportedReport = (r: Report) => ({
  id: r.id,
  kind: r.kind,
  listing_id: r.listingId,
  con_id: r.conId,
  message_id: r.messageId,
  reported_user_id: r.reportedUserId,
  reason: r.reason,
  messages: r.messages.map((m) => ({ id: m.id, sender_id: m.sourceId, text: m.text, created_at: iso(m.createdAt) })),
  created_at: iso(r.createdAt),
  closed_at: iso(r.closedAt),
});

/** The store's block lists and reports (domain/user-data.ts). */
const safetyRecords = (store: Store): SafetyRecords => ({
  blocksOf: async (userId) => ({
    users: await store.repos.blocks.blockedUserIds(userId),
    listings: await store.repos.blocks.blockedListingIds(userId),
  }),
  // Through the routes' own unblocking, so that each database keeps its lists and locks as a block does.
  forgetBlocksOf: (userId) =>
    store.transaction(async (repos) => {
      let forgotten = 0;
      for (const id of await repos.blocks.blockedUserIds(userId)) if (await repos.blocks.unblockUser(userId, id)) forgotten++;
      for (const id of await repos.blocks.blockedListingIds(userId)) if (await repos.blocks.unblockListing(userId, id)) forgotten++;
      return forgotten;
    }, userId),
  reportsBy: async (userId) => (await store.reports.madeBy(userId)).map(exportedReport),
  forgetReportsBy: (userId) => store.reports.forgetMadeBy(userId),
});

export async function exportUser(ctx: CliContext, idArg: string): Promise<void> {
  const userId = positiveInteger(idArg, 'ID');
  const devices = ctx.store.pushDevices;
  const deps: UserDataDeps = {
    repos: ctx.store.repos,
    safety: safetyRecords(ctx.store),
    ...(devices ? { deviceTokens: (id: number) => devices.tokensOf(id) } : {}),
  };
  const document = await exportUserData(deps, userId);
  if (!document) throw new CliError(`no user with id ${userId}`);
  ctx.out(JSON.stringify(document, null, 2));
}

export async function eraseUserCommand(ctx: CliContext, idArg: string): Promise<void> {
  const userId = positiveInteger(idArg, 'ID');
  // The files their messages carry, read before the erasure empties the messages; the orphan sweep
  // takes those of conversations they had left.
  const uploads = (await exportUserData({ repos: ctx.store.repos, safety: safetyRecords(ctx.store) }, userId))?.conversations.flatMap((c) =>
    c.messages.filter((m) => m.sender_id === userId).flatMap((m) => m.attachments),
  );
  const result = await eraseUser(ctx.store, safetyRecords(ctx.store), userId);
  if (!result.ok) throw refusal(result.error, userId);
  await deleteUploads(ctx, uploads ?? []);
  await closeSessions(ctx, userId, true);
  const e = result.value;
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
  examples: ['souk users export 7 > user-7.json'],
  run: ({ args: [id] }) => withStore((ctx) => exportUser(ctx, id!)),
};

export const usersEraseCommand: Command = {
  name: 'users erase',
  summary: "erase a user's data",
  about:
    'Erases the user: their favourites, blocks, push devices, tokens, events and the reports they made go; their messages keep their place in the other side\'s conversations with text and attachments removed; the profile becomes "Deleted user" without e-mail, phone or picture; they cannot sign in. Once it has answered, no message from or to them is stored. Running it again is harmless. On a WordPress site the wp_users row stays (WordPress\'s own eraser owns it): Souk erases the chat, favourites and blocks, and says so.',
  args: [{ name: 'ID', help: "the user's id" }],
  examples: ['souk users erase 7'],
  run: ({ args: [id] }) => withStore((ctx) => eraseUserCommand(ctx, id!)),
};
