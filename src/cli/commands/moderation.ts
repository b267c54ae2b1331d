/**
 * souk users disable ID, souk users enable ID, souk messages delete ID: the operator's moderation
 * (docs/safety.md), on every database.
 */
import { setDisabled } from '../../domain/operator/users.js';
import { deleteMessage as removeMessage } from '../../domain/operator/messages.js';
import type { Command } from '../command.js';
import { withStore, type CliContext } from '../context.js';
import { cliChange, operatorOf, REASON_OPTION, refusal } from '../operator.js';
import { positiveInteger } from './token.js';

export async function disableUser(ctx: CliContext, idArg: string, disabled: boolean, reason?: string): Promise<void> {
  const userId = positiveInteger(idArg, 'ID');
  const result = await setDisabled(operatorOf(ctx), cliChange(reason), userId, disabled);
  if (!result.ok) throw refusal(result, userId);
  const state = disabled ? 'disabled' : 'enabled';
  ctx.out(result.changed ? `user ${userId} ${state}` : `user ${userId} was already ${state}`);
}

export async function deleteMessage(ctx: CliContext, idArg: string, reason?: string): Promise<void> {
  const messageId = positiveInteger(idArg, 'ID');
  const result = await removeMessage(operatorOf(ctx), cliChange(reason), messageId);
  if (!result.ok) throw refusal(result, messageId);
  ctx.out(`message ${messageId} removed: its text and attachments are gone, its place in conversation ${result.message.conId} stays`);
}

export const usersDisableCommand: Command = {
  name: 'users disable',
  summary: 'disable a user: no sign-in, no messages to or from them',
  about:
    'Disables the user: sign-in refuses them as it refuses a wrong password, their tokens are revoked on every server (within SETTINGS_REFRESH_MS), and no message can be sent to or from them (refused at once, on every server). Their conversations and messages stay. `souk users enable` undoes it; they then sign in again.',
  args: [{ name: 'ID', help: "the user's id" }],
  options: REASON_OPTION,
  examples: ['souk users disable 7', 'souk users disable 7 --reason "spam, report 12"'],
  run: ({ args: [id], options }) => withStore((ctx) => disableUser(ctx, id!, true, options.reason)),
};

export const usersEnableCommand: Command = {
  name: 'users enable',
  summary: 'enable a user disabled before',
  about:
    'Enables a user disabled with `souk users disable`: they may sign in and take part in the chat again. An erased user stays disabled.',
  args: [{ name: 'ID', help: "the user's id" }],
  options: REASON_OPTION,
  examples: ['souk users enable 7'],
  run: ({ args: [id], options }) => withStore((ctx) => disableUser(ctx, id!, false, options.reason)),
};

export const messagesDeleteCommand: Command = {
  name: 'messages delete',
  summary: 'remove a chat message, as the plugin lets admins do',
  about:
    "Removes the message as the plugin's admin removal does: the row keeps its place in the conversation, its text and attachments are removed and its type becomes `system` (read as an empty text message). Both participants' open event streams get a `message.update` with the emptied message.",
  args: [{ name: 'ID', help: "the message's id" }],
  options: REASON_OPTION,
  examples: ['souk messages delete 4711', 'souk messages delete 4711 --reason "insults, report 12"'],
  run: ({ args: [id], options }) => withStore((ctx) => deleteMessage(ctx, id!, options.reason)),
};
