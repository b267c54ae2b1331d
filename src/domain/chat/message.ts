/** my/chat/message (docs/routes.md): answer in a conversation, mark messages read, take back or correct one's own message (docs/chat-plus.md). */
import type { Attachment, Message, MessageAttachment, UploadedAttachment } from '../model.js';
import type { Repositories, UnitOfWork } from '../ports.js';
import {
  checkMessageInput,
  newMessage,
  openFor,
  otherLeft,
  otherParticipant,
  type ChatLimits,
  type StartConversationError,
} from './common.js';
import { closedParticipant, closedSide } from '../moderation.js';
import { appendMessage, recordForBoth, recordNewMessage, recordUnread } from './events.js';
import { blockedEitherWay } from '../privacy/common.js';
import { screenFileNames } from '../safety/words.js';

export interface SendMessageInput {
  conId: number;
  /** When given, it must be the conversation's listing. */
  listingId: number | null;
  text: string;
  files: Attachment[];
  /** Files uploaded with the message (domain/files/), already stored. */
  uploads?: UploadedAttachment[];
  /** As StartConversationInput's (common.ts). */
  uploadsSent?: boolean;
  tempId: string | null;
}

export type SendMessageError = Exclude<StartConversationError, 'listing_not_found' | 'own_listing'> | 'forbidden' | 'other_left';

/** `created`: whether this request stored the message (false: a retry's, stored before). */
export type SendMessageResult = { ok: true; value: Message; created: boolean } | { ok: false; error: SendMessageError };

type Answerable = { ok: true; other: number; stored: Message | undefined } | { ok: false; error: SendMessageError };

/**
 * The rules of an answer, in their order, on `repos` (the send's transaction, or committed reads
 * before it): the conversation's other participant and the message a retry of it stored, or why not.
 */
async function answerable(
  repos: Repositories,
  senderId: number,
  input: Pick<SendMessageInput, 'conId' | 'listingId' | 'tempId'>,
): Promise<Answerable> {
  // Reads that need nothing but the conversation's id, asked together (a database may answer
  // them in one round trip), their answers taken in the order of the rules.
  const [open, closedInConversation, stored] = await Promise.all([
    openFor(repos, input.conId, senderId),
    repos.moderation?.closedInConversation?.(input.conId),
    input.tempId === null ? undefined : repos.messages.findByTempId(input.conId, senderId, input.tempId),
  ]);
  if (!open || (input.listingId !== null && input.listingId !== open.conversation.listingId)) return { ok: false, error: 'forbidden' };
  // Its reader can no longer see it: storing it would lose it silently.
  if (otherLeft(open.conversation, open.side)) return { ok: false, error: 'other_left' };
  const other = otherParticipant(open.conversation, senderId);
  // The sender is a participant: those closed in the conversation are those closed among the two.
  const [closed, blocked] = await Promise.all([
    closedInConversation ? closedSide(closedInConversation, senderId) : closedParticipant(repos, senderId, other),
    blockedEitherWay(repos, senderId, other),
  ]);
  if (closed) return { ok: false, error: 'user_closed' };
  if (blocked) return { ok: false, error: 'blocked' };
  return { ok: true, other, stored };
}

/** Appends the caller's message; a retry with the same temp_id returns the stored one (D6). */
export async function sendMessage(
  uow: UnitOfWork,
  senderId: number,
  input: SendMessageInput,
  limits: ChatLimits,
  now: number = Date.now(),
): Promise<SendMessageResult> {
  const invalid = checkMessageInput(input, limits);
  if (invalid) return { ok: false, error: invalid as SendMessageError };
  input = screenFileNames(limits.wordScreen?.(), input);
  return uow.transaction(async (repos): Promise<SendMessageResult> => {
    const checked = await answerable(repos, senderId, input);
    if (!checked.ok) return checked;
    if (checked.stored) return { ok: true, value: checked.stored, created: false };
    const appended = await appendMessage(repos, newMessage(input.conId, senderId, input, now), checked.other);
    await recordNewMessage(repos, appended, checked.other, now);
    return { ok: true, value: appended.message, created: true };
  }, senderId);
}

/** `retry`: the temp_id names a message stored already, which the send will return (its files are not needed). */
export type MaySendResult = { ok: true; retry: boolean } | { ok: false; error: SendMessageError };

/**
 * Whether sendMessage would take the message, asked before its costly part (its uploaded files,
 * which are to come) is read: the same rules, on committed reads. sendMessage applies them again
 * in its transaction.
 */
export async function mayAnswer(
  repos: Repositories,
  senderId: number,
  input: Omit<SendMessageInput, 'uploads' | 'uploadsSent'>,
  limits: ChatLimits,
): Promise<MaySendResult> {
  const invalid = checkMessageInput({ ...input, uploadsSent: true }, limits);
  if (invalid) return { ok: false, error: invalid as SendMessageError };
  const checked = await answerable(repos, senderId, input);
  return checked.ok ? { ok: true, retry: checked.stored !== undefined } : checked;
}

export type MarkReadResult = { ok: true; changed: boolean } | { ok: false; error: 'forbidden' };

/**
 * Marks the message and every earlier unread one from the other participant read. A message of
 * the caller's own, or of another conversation, changes nothing.
 */
export async function markRead(
  uow: UnitOfWork,
  readerId: number,
  conId: number,
  messageId: number,
  now: number = Date.now(),
): Promise<MarkReadResult> {
  return uow.transaction(async (repos): Promise<MarkReadResult> => {
    // Both need nothing but the ids given: asked together (a database may answer them in one round trip).
    const [open, message] = await Promise.all([openFor(repos, conId, readerId), repos.messages.findById(messageId)]);
    if (!open) return { ok: false, error: 'forbidden' };
    const other = otherParticipant(open.conversation, readerId);
    if (!message || message.conId !== conId || message.sourceId !== other) return { ok: true, changed: false };
    const changed = (await repos.messages.markRead(conId, other, messageId)) > 0;
    if (changed && repos.events) {
      const events = repos.events;
      // A read receipt is the reader's doing: it does not reach a user across a block.
      const toOther = !(await blockedEitherWay(repos, readerId, other));
      // The read receipt names the message marked: every earlier one of its sender is read too.
      const receipt = async () => {
        if (toOther) await events.record(other, { type: 'message.update', message: { ...message, isRead: true }, readBy: readerId }, now);
      };
      const unread = () => recordUnread(repos, readerId, conId, other, now);
      // Two users' logs, written in ascending user id: when both participants mark read at once,
      // their transactions take the logs' locks in one order and cannot deadlock.
      for (const write of readerId < other ? [unread, receipt] : [receipt, unread]) await write();
    }
    return { ok: true, changed };
  }, readerId);
}

/** How long after sending it, and whether once the other side read it, a sender may correct a message. */
export interface EditRules {
  windowMs: number;
  afterRead: boolean;
}

/** The settings' defaults (MESSAGE_EDIT_WINDOW_S, MESSAGE_EDIT_AFTER_READ). */
export const DEFAULT_EDIT_RULES: EditRules = { windowMs: 900_000, afterRead: false };

/**
 * Why a sender may not take back or correct a message: `forbidden` the conversation is not theirs,
 * `message_not_found` no such message, `other_conversation` it is another conversation's,
 * `not_yours` the other participant wrote it, `not_editable` an offer or a removed message (its
 * text is not the sender's words), `edit_window` too late, `already_read` the other side read it.
 */
export type OwnMessageError =
  'forbidden' | 'message_not_found' | 'other_conversation' | 'not_yours' | 'not_editable' | 'edit_window' | 'already_read';

export type EditMessageError = OwnMessageError | StartConversationError;

/** `changed`: false when the request changed nothing (a repeat: the message is as asked already). */
export type OwnMessageResult = { ok: true; value: Message; changed: boolean } | { ok: false; error: OwnMessageError };
export type EditMessageResult = { ok: true; value: Message; changed: boolean } | { ok: false; error: EditMessageError };

/** A message the plugin's admin, its sender or an erasure emptied: no text, no attachments. */
const emptied = (m: Message) => m.text === '' && (m.attachments === null || m.attachments.length === 0) && !m.offer;

/** The caller's own message of the conversation, read in the transaction, or why not. */
async function ownMessage(
  repos: Repositories,
  userId: number,
  conId: number,
  messageId: number,
): Promise<{ ok: true; message: Message; other: number } | { ok: false; error: OwnMessageError }> {
  const [open, message] = await Promise.all([openFor(repos, conId, userId), repos.messages.findById(messageId)]);
  if (!open) return { ok: false, error: 'forbidden' };
  if (!message) return { ok: false, error: 'message_not_found' };
  if (message.conId !== conId) return { ok: false, error: 'other_conversation' };
  if (message.sourceId !== userId) return { ok: false, error: 'not_yours' };
  return { ok: true, message, other: otherParticipant(open.conversation, userId) };
}

/**
 * The sender takes their message back (my/chat/message DELETE): its text, attachments and edit
 * history go as a moderator's removal takes them (domain/moderation.ts), the row stays in its place
 * for the apps to draw, and both participants get `message.removed`. The caller deletes the stored
 * files of `files` once it committed. Taking it back again changes nothing and answers alike. A
 * report made before keeps its own copy (reports.ts).
 */
export async function deleteOwnMessage(
  uow: UnitOfWork,
  userId: number,
  conId: number,
  messageId: number,
  now: number = Date.now(),
): Promise<OwnMessageResult & { files?: MessageAttachment[] }> {
  return uow.transaction(async (repos) => {
    const own = await ownMessage(repos, userId, conId, messageId);
    if (!own.ok) return own;
    if (emptied(own.message)) return { ok: true, value: own.message, changed: false };
    if (!repos.moderation) throw new Error('this store has no moderation repository');
    const removed = await repos.moderation.removeMessage(messageId);
    if (!removed) return { ok: false, error: 'message_not_found' };
    await recordForBoth(repos, userId, own.other, { type: 'message.removed', message: removed }, now);
    return { ok: true, value: removed, changed: true, files: own.message.attachments ?? [] };
  }, userId);
}

/**
 * The sender corrects their message's text (my/chat/message PATCH) within `rules.windowMs` of
 * sending it and, unless `rules.afterRead`, while the other side has not read it. The text is
 * checked as a send checks it (the route screens its words first), and the rules of an answer
 * hold: nothing to or from a closed user, nothing across a block. The previous text is kept (the
 * edit history); both participants get `message.update` with the message as it is now.
 */
export async function editMessage(
  uow: UnitOfWork,
  userId: number,
  input: { conId: number; messageId: number; text: string },
  limits: ChatLimits,
  rules: EditRules,
  now: number = Date.now(),
): Promise<EditMessageResult> {
  const invalid = checkMessageInput({ text: input.text, files: [] }, limits);
  if (invalid) return { ok: false, error: invalid };
  return uow.transaction(async (repos): Promise<EditMessageResult> => {
    const own = await ownMessage(repos, userId, input.conId, input.messageId);
    if (!own.ok) return own;
    const { message, other } = own;
    if (message.type === 'offer' || emptied(message)) return { ok: false, error: 'not_editable' };
    if (rules.windowMs === 0 || now - message.createdAt > rules.windowMs) return { ok: false, error: 'edit_window' };
    if (message.isRead && !rules.afterRead) return { ok: false, error: 'already_read' };
    const [closed, blocked] = await Promise.all([closedParticipant(repos, userId, other), blockedEitherWay(repos, userId, other)]);
    if (closed) return { ok: false, error: 'user_closed' };
    if (blocked) return { ok: false, error: 'blocked' };
    if (message.text === input.text) return { ok: true, value: message, changed: false };
    if (!repos.edits) throw new Error('this store keeps no edit history');
    const edited = await repos.edits.edit(message, input.text, now, !rules.afterRead);
    if (!edited) return { ok: false, error: 'already_read' };
    // The store's text rules made it the text it was (a WordPress site strips markup): nothing changed.
    if (edited === message) return { ok: true, value: message, changed: false };
    await recordForBoth(repos, userId, other, { type: 'message.update', message: edited }, now);
    return { ok: true, value: edited, changed: true };
  }, userId);
}
