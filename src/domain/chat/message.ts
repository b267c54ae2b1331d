/** my/chat/message (docs/routes.md): answer in a conversation, mark messages read. */
import type { Attachment, Message, UploadedAttachment } from '../model.js';
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
import { appendMessage, recordNewMessage, recordUnread } from './events.js';
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
