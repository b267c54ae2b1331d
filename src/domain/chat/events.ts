/** The events the chat's use cases record, inside their transactions (domain/events.ts). */
import type { DomainEvent } from '../events.js';
import type { Message, NewMessage } from '../model.js';
import type { EventRecorder, Repositories } from '../ports.js';

/**
 * How many messages of `senderId` in the conversation `readerId` has not read, read once the
 * reader's log is held (EventRecorder.hold): a unit of work changing that count and logging it at
 * the same time then logs before this one, so the `conversation.unread` logged last is the count
 * that holds. Both asked together: a database may send them in one round trip.
 */
async function heldUnreadCount(repos: Repositories, events: EventRecorder, readerId: number, conId: number, senderId: number) {
  const [, count] = await Promise.all([events.hold?.(readerId), repos.conversations.unreadFrom(conId, senderId)]);
  return count;
}

/** A stored message, and when events are recorded its reader's unread count after it (recordNewMessage's). */
export interface AppendedMessage {
  message: Message;
  unread: number | undefined;
}

/**
 * Appends the message. With events, its reader's unread count is asked for with it, after it in
 * the order asked (UnitOfWork): it counts the new message, and costs no round trip of its own.
 */
export async function appendMessage(repos: Repositories, message: NewMessage, readerId: number): Promise<AppendedMessage> {
  if (!repos.events) return { message: await repos.messages.append(message), unread: undefined };
  const [stored, unread] = await Promise.all([
    repos.messages.append(message),
    heldUnreadCount(repos, repos.events, readerId, message.conId, message.sourceId),
  ]);
  return { message: stored, unread };
}

/**
 * The first message of a conversation its start created: its reader has it unread, and nothing
 * else of the conversation. No count to read and no log to hold: no other unit of work sees the
 * conversation before this one commits.
 */
export function firstAppended(repos: Repositories, message: Message): AppendedMessage {
  return { message, unread: repos.events ? 1 : undefined };
}

/** A message appendMessage stored: `message.new` for its reader, then their unread count in the conversation. */
export async function recordNewMessage(
  repos: Repositories,
  { message, unread }: AppendedMessage,
  readerId: number,
  at: number,
): Promise<void> {
  if (!repos.events || unread === undefined) return;
  await repos.events.record(readerId, { type: 'message.new', message }, at);
  await logUnread(repos.events, readerId, message.conId, unread, at);
}

/** `conversation.unread`: how many messages of `senderId` in the conversation `userId` has not read. */
export async function recordUnread(repos: Repositories, userId: number, conId: number, senderId: number, at: number): Promise<void> {
  if (!repos.events) return;
  await logUnread(repos.events, userId, conId, await heldUnreadCount(repos, repos.events, userId, conId, senderId), at);
}

const logUnread = (events: EventRecorder, userId: number, conversationId: number, count: number, at: number) =>
  events.record(userId, { type: 'conversation.unread', userId, conversationId, count }, at);

/**
 * Records the event for both participants, in ascending user id: every transaction writing two
 * users' logs takes their locks in that one order, so two of them cannot deadlock.
 */
export async function recordForBoth(repos: Repositories, a: number, b: number, event: DomainEvent, now: number): Promise<void> {
  if (!repos.events) return;
  for (const userId of [...new Set([a, b])].sort((x, y) => x - y)) await repos.events.record(userId, event, now);
}
