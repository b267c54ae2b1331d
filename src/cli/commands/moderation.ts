/**
 * souk users disable ID, souk users enable ID, souk messages delete ID: the operator's moderation
 * (docs/safety.md), on every database.
 */
import { randomUUID } from 'node:crypto';
import { revokeEveryToken } from '../../auth/revoked-tokens.js';
import { removeMessage, setUserDisabled, type ModerationError } from '../../domain/moderation.js';
import { CATALOG_VERSION } from '../../domain/ports.js';
import type { MessageAttachment } from '../../domain/model.js';
import type { Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';
import { positiveInteger } from './token.js';

const REFUSALS: Record<ModerationError, (id: number) => string> = {
  no_such_user: (id) => `no user with id ${id}`,
  erased: (id) => `user ${id} was erased: an erased user stays disabled`,
  no_such_message: (id) => `no message with id ${id}`,
};

export const refusal = (error: ModerationError, id: number) => new CliError(REFUSALS[error](id));

/**
 * After a user was disabled or erased: their tokens are revoked and every server drops the users
 * it cached, both within SETTINGS_REFRESH_MS (their sends are refused at once: they read the
 * database). After an enable, only the cached users go.
 */
export async function closeSessions(ctx: CliContext, userId: number, revoke: boolean): Promise<void> {
  if (revoke) await revokeEveryToken(ctx.store.revocations, userId, ctx.config.tokenMaxTtlS);
  await ctx.store.settings.set(CATALOG_VERSION, randomUUID());
}

export async function disableUser(ctx: CliContext, idArg: string, disabled: boolean): Promise<void> {
  const userId = positiveInteger(idArg, 'ID');
  const result = await setUserDisabled(ctx.store, userId, disabled);
  if (!result.ok) throw refusal(result.error, userId);
  await closeSessions(ctx, userId, disabled);
  const state = disabled ? 'disabled' : 'enabled';
  ctx.out(result.value ? `user ${userId} ${state}` : `user ${userId} was already ${state}`);
}

/** Deletes the stored files of removed messages, unless another message names the same content (docs/files.md). */
export async function deleteUploads(ctx: CliContext, attachments: readonly MessageAttachment[]): Promise<void> {
  if (attachments.length === 0) return;
  // Loaded when used: the CLI's other commands start without the image library and the S3 client.
  const { deleteMessageFiles } = await import('../../domain/files/sweep.js');
  const { closeFileStorage, openFileStorage } = await import('../../store/files/open.js');
  const { dir, url, s3, s3PublicUrl } = ctx.config.files;
  const storage = await openFileStorage({ dir, url, s3, s3PublicUrl });
  try {
    await deleteMessageFiles(storage, ctx.store.fileReferences, attachments);
  } finally {
    closeFileStorage(storage);
  }
}

export async function deleteMessage(ctx: CliContext, idArg: string): Promise<void> {
  const messageId = positiveInteger(idArg, 'ID');
  const before = await ctx.store.repos.messages.findById(messageId);
  const result = await removeMessage(ctx.store, messageId);
  if (!result.ok) throw refusal(result.error, messageId);
  // Its uploaded files go too, unless another message names the same content (docs/files.md).
  await deleteUploads(ctx, before?.attachments ?? []);
  ctx.out(`message ${messageId} removed: its text and attachments are gone, its place in conversation ${result.value.conId} stays`);
}

export const usersDisableCommand: Command = {
  name: 'users disable',
  summary: 'disable a user: no sign-in, no messages to or from them',
  about:
    'Disables the user: sign-in refuses them as it refuses a wrong password, their tokens are revoked on every server (within SETTINGS_REFRESH_MS), and no message can be sent to or from them (refused at once, on every server). Their conversations and messages stay. `souk users enable` undoes it; they then sign in again.',
  args: [{ name: 'ID', help: "the user's id" }],
  examples: ['souk users disable 7'],
  run: ({ args: [id] }) => withStore((ctx) => disableUser(ctx, id!, true)),
};

export const usersEnableCommand: Command = {
  name: 'users enable',
  summary: 'enable a user disabled before',
  about:
    'Enables a user disabled with `souk users disable`: they may sign in and take part in the chat again. An erased user stays disabled.',
  args: [{ name: 'ID', help: "the user's id" }],
  examples: ['souk users enable 7'],
  run: ({ args: [id] }) => withStore((ctx) => disableUser(ctx, id!, false)),
};

export const messagesDeleteCommand: Command = {
  name: 'messages delete',
  summary: 'remove a chat message, as the plugin lets admins do',
  about:
    "Removes the message as the plugin's admin removal does: the row keeps its place in the conversation, its text and attachments are removed and its type becomes `system` (read as an empty text message). Both participants' open event streams get a `message.update` with the emptied message.",
  args: [{ name: 'ID', help: "the message's id" }],
  examples: ['souk messages delete 4711'],
  run: ({ args: [id] }) => withStore((ctx) => deleteMessage(ctx, id!)),
};
