/** Writing in a conversation (docs/routes.md): answer, mark read, leave. */
import { checkMessageInput, newMessage, type ChatLimits, type StartConversationError } from './chat.js';
import { recordNewMessage, recordUnread } from './chat-events.js';
import { otherParticipant, sideOf } from './conversations.js';
import type { Attachment, Conversation, Message, Side } from './model.js';
import type { Repositories, UnitOfWork } from './ports.js';

export interface SendMessageInput {
  conId: number;
  /** When given, it must be the conversation's listing. */
  listingId: number | null;
  text: string;
  files: Attachment[];
  tempId: string | null;
}

export type SendMessageError = Exclude<StartConversationError, 'listing_not_found' | 'own_listing'> | 'forbidden' | 'other_left';

export type SendMessageResult = { ok: true; value: Message } | { ok: false; error: SendMessageError };

/** The conversation and the caller's side in it, when the caller may write in it (N3). */
async function openFor(repos: Repositories, conId: number, userId: number): Promise<{ conversation: Conversation; side: Side } | null> {
  const conversation = await repos.conversations.findById(conId);
  const side = conversation ? sideOf(conversation, userId) : null;
  return conversation && side ? { conversation, side } : null;
}

const otherLeft = (c: Conversation, side: Side) => (side === 'sender' ? c.recipientDelete : c.senderDelete);

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
  return uow.transaction(async (repos): Promise<SendMessageResult> => {
    const open = await openFor(repos, input.conId, senderId);
    if (!open || (input.listingId !== null && input.listingId !== open.conversation.listingId)) return { ok: false, error: 'forbidden' };
    // Its reader can no longer see it: storing it would lose it silently.
    if (otherLeft(open.conversation, open.side)) return { ok: false, error: 'other_left' };
    if (input.tempId !== null) {
      const stored = await repos.messages.findByTempId(input.conId, senderId, input.tempId);
      if (stored) return { ok: true, value: stored };
    }
    const message = await repos.messages.append(newMessage(input.conId, senderId, input, now));
    await recordNewMessage(repos, message, otherParticipant(open.conversation, senderId), now);
    return { ok: true, value: message };
  }, senderId);
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
    const open = await openFor(repos, conId, readerId);
    if (!open) return { ok: false, error: 'forbidden' };
    const message = await repos.messages.findById(messageId);
    const other = otherParticipant(open.conversation, readerId);
    if (!message || message.conId !== conId || message.sourceId !== other) return { ok: true, changed: false };
    const changed = (await repos.messages.markRead(conId, other, messageId)) > 0;
    if (changed && repos.events) {
      const events = repos.events;
      // The read receipt names the message marked: every earlier one of its sender is read too.
      const receipt = () => events.record(other, { type: 'message.update', message: { ...message, isRead: true } }, now);
      const unread = () => recordUnread(repos, readerId, conId, other, now);
      // Two users' logs, written in ascending user id: when both participants mark read at once,
      // their transactions take the logs' locks in one order and cannot deadlock.
      for (const write of readerId < other ? [unread, receipt] : [receipt, unread]) await write();
    }
    return { ok: true, changed };
  }, readerId);
}

export type LeaveResult = { ok: true } | { ok: false; error: 'forbidden' };

/** The caller leaves the conversation: it leaves their list; the other participant still sees it. */
export async function leaveConversation(uow: UnitOfWork, userId: number, conId: number, now: number = Date.now()): Promise<LeaveResult> {
  return uow.transaction(async (repos): Promise<LeaveResult> => {
    const open = await openFor(repos, conId, userId);
    if (!open) return { ok: false, error: 'forbidden' };
    await repos.conversations.leave(conId, open.side);
    // The other participant, unless they left first: they can no longer answer.
    if (!otherLeft(open.conversation, open.side)) {
      const other = otherParticipant(open.conversation, userId);
      await repos.events?.record(other, { type: 'conversation.left', conversationId: conId, userId }, now);
    }
    return { ok: true };
  }, userId);
}
