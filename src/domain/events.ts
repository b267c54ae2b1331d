/**
 * What happens in the chat and the favourites, as the event log (the stream, the webhooks) keeps
 * it: domain values only, recorded by the use cases in the transaction of the change that causes
 * them. src/events/ presents them in the wire shapes of the routes.
 */
import type { StartedConversation } from './chat/conversation.js';
import type { Conversation, Listing, Message } from './model.js';
import type { Report } from './reports.js';

/** The plugin's Pusher event names, Souk's `conversation.left`, and the favourites', reports' and offers' webhook events. */
export type DomainEvent =
  /** A conversation was started with its first message; for its recipient (the listing's owner). */
  | { type: 'conversation.new'; started: StartedConversation }
  /** A message was stored; for the participant who did not write it. */
  | { type: 'message.new'; message: Message }
  /** How many messages of the conversation the user has not read, after a change. */
  | { type: 'conversation.unread'; userId: number; conversationId: number; count: number }
  /**
   * A message was marked read (and every earlier one of its sender): for its sender, `readBy` the
   * reader. Or a moderator removed it (`removed`): for both participants, the message emptied.
   */
  | { type: 'message.update'; message: Message; readBy?: number; removed?: true }
  /** The sender took their message back (my/chat/message DELETE): for both participants, the message emptied. */
  | { type: 'message.removed'; message: Message }
  /** The other participant left the conversation (Souk's own: the plugin sends nothing). */
  | { type: 'conversation.left'; conversationId: number; userId: number }
  /** The user added a listing to their favourites, or removed it (webhooks only). */
  | { type: 'favourite.added' | 'favourite.removed'; userId: number; listingId: number }
  /** The user reported a listing, a conversation or a message (webhooks only; the reporter's event). */
  | { type: 'report.created'; report: Report }
  /** The user accepted an offer (webhooks only; the accepter's event): the marketplace may reserve the listing or open a checkout. */
  | { type: 'offer.accepted'; offer: Message; conversation: Conversation; listing: Listing | undefined };

export type EventType = DomainEvent['type'];

/** The events whose payload may carry another user's words or profile (usersCarriedBy). */
export const CARRYING_EVENTS: readonly EventType[] = [
  'conversation.new',
  'message.new',
  'message.update',
  'message.removed',
  'report.created',
];

/**
 * The users whose words or profile an event carries, not those it names by id alone: a message's
 * sender, a start's two participants (their profiles), a report's reported user (the messages it
 * keeps). An erasure deletes the other users' outbox rows of the events that carry the erased user
 * (docs/safety.md), so that nothing sends them again.
 */
export function usersCarriedBy(event: DomainEvent): number[] {
  switch (event.type) {
    case 'message.new':
    case 'message.update':
    case 'message.removed':
      return [event.message.sourceId];
    case 'conversation.new':
      return [event.started.conversation.senderId, event.started.conversation.recipientId];
    case 'report.created':
      return event.report.reportedUserId === null ? [] : [event.report.reportedUserId];
    default:
      return [];
  }
}

/** Whether a stored outbox payload carries the user: a DomainEvent (webhooks), or a push's `{message}`. */
export function payloadCarries(payload: string, userId: number): boolean {
  const parsed = JSON.parse(payload) as DomainEvent | { type?: undefined; message: Message };
  if (parsed.type === undefined) return parsed.message.sourceId === userId;
  return usersCarriedBy(parsed).includes(userId);
}

/** The events a user's stream carries; the favourites' two, `report.created` and `offer.accepted` go to webhooks only. */
export const STREAMED_EVENTS: readonly EventType[] = [
  'conversation.new',
  'message.new',
  'conversation.unread',
  'message.update',
  'message.removed',
  'conversation.left',
];

/**
 * What is never stored (issue 50): published to the instances' listeners (their streams, and any
 * other publisher that subscribes) and forgotten. `conversation.typing`: `userId` is typing in the
 * conversation, for `to` (the other participant). `blocks.changed`: a block was made or lifted, so
 * what was cached of who may type to whom is stale.
 */
export type LiveEvent = { type: 'conversation.typing'; to: number; conversationId: number; userId: number } | { type: 'blocks.changed' };

/** An event for one user, as the log holds it. */
export interface LoggedEvent {
  /** The user's own sequence: 1, 2, 3... in the order their events committed. */
  seq: number;
  type: EventType;
  /** The DomainEvent, as JSON text. */
  payload: string;
  createdAt: number;
}

/** Where a stream writes: the HTTP response, as the route adapts it. */
export interface StreamSink {
  write(chunk: string): void;
  /** Bytes written that the client has not taken yet (in this process). */
  buffered(): number;
  /** True when the writer should wait for drain before writing more. */
  needsDrain(): boolean;
  /** Resolves once the client has taken what was written, or the connection closed. */
  drained(): Promise<void>;
  /** Ends the response cleanly. */
  end(): void;
  /** Cuts the connection (a client too slow to keep up). */
  destroy(): void;
  onClose(listener: () => void): void;
}

export interface StreamRequest {
  userId: number;
  /** The Last-Event-ID header (or query parameter), when the client sent one. */
  lastEventId: string | undefined;
  sink: StreamSink;
  /** False once the stream must end: its token revoked or expired. */
  stillValid: () => boolean;
}

/** The users' open streams (GET my/events): src/events/ holds them, the route hands them over. */
export interface EventStreams {
  /** Opens a stream: replays what the client missed after Last-Event-ID, then follows the log. */
  add(request: StreamRequest): void;
}
