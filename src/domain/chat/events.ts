/** The events the chat's use cases record, inside their transactions (domain/events.ts). */
import type { Message } from '../model.js';
import type { Repositories } from '../ports.js';

/** A stored message: `message.new` for its reader, then their unread count in the conversation. */
export async function recordNewMessage(repos: Repositories, message: Message, readerId: number, at: number): Promise<void> {
  if (!repos.events) return;
  await repos.events.record(readerId, { type: 'message.new', message }, at);
  await recordUnread(repos, readerId, message.conId, message.sourceId, at);
}

/** `conversation.unread`: how many messages of `senderId` in the conversation `userId` has not read. */
export async function recordUnread(repos: Repositories, userId: number, conId: number, senderId: number, at: number): Promise<void> {
  if (!repos.events) return;
  const count = await repos.conversations.unreadFrom(conId, senderId);
  await repos.events.record(userId, { type: 'conversation.unread', userId, conversationId: conId, count }, at);
}
