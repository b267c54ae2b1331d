/**
 * Live events on the site's Pusher Channels app (issue 47, docs/pusher.md): which of the plugin's
 * Pusher events a recorded DomainEvent becomes, and for whom; the outbox the change's transaction
 * writes them to; and who may subscribe to a private channel. src/events/pusher.ts sends the
 * outbox, src/present/pusher.ts gives the events' data in the plugin's shapes.
 */
import type { AuditRecord } from './audit.js';
import type { DomainEvent } from './events.js';

/** The plugin's event names (Pro 4.0.2), and the two its web chat binds but never gets. */
export type PusherEventName =
  'conversation.new' | 'message.new' | 'conversation.unread' | 'message.update' | 'message.removed' | 'conversation.removed';

/** A Pusher Channels app: where events are triggered and what signs them. */
export interface PusherApp {
  appId: string;
  key: string;
  /** Never printed or logged. */
  secret: string;
  /** For GET config (`chat.pusher.app_cluster`); null when neither the host nor PUSHER_CLUSTER says. */
  cluster: string | null;
  host: string;
  port: number | undefined;
  useTLS: boolean;
}

/** Where a user's events go: the plugin's public `chat-user-{id}`, or Souk's `private-chat-user-{id}`. */
export type PusherChannels = 'public' | 'private';

export const channelOf = (userId: number, channels: PusherChannels): string =>
  `${channels === 'private' ? 'private-' : ''}chat-user-${userId}`;

/**
 * Whether the caller may subscribe to the channel: only their own private one. A public channel
 * needs no authorization, so it is refused here too.
 */
export function mayAuthorize(callerId: number, channelName: string): boolean {
  return channelName === channelOf(callerId, 'private');
}

/** One Pusher event for one user (their channel), as recordEvents decides it. */
export interface PusherEventFor {
  userId: number;
  name: PusherEventName;
}

/**
 * The Pusher events a DomainEvent recorded for `userId` becomes, with the plugin's defects fixed
 * (pusher.md): `message.new` once, to the reader only; `conversation.new` to both participants;
 * a moderator's removal and a sender's are `message.removed`; a participant leaving removes the conversation from
 * the leaver's own lists (`conversation.removed`), the other one still sees it.
 */
export function pusherEventsOf(userId: number, event: DomainEvent): PusherEventFor[] {
  switch (event.type) {
    case 'conversation.new': {
      const { conversation } = event.started;
      return [conversation.senderId, conversation.recipientId].map((id) => ({ userId: id, name: 'conversation.new' as const }));
    }
    case 'message.new':
    case 'conversation.unread':
      return [{ userId, name: event.type }];
    case 'message.update':
      return [{ userId, name: event.removed ? 'message.removed' : 'message.update' }];
    case 'message.removed':
      return [{ userId, name: 'message.removed' }];
    case 'conversation.left':
      return [{ userId: event.userId, name: 'conversation.removed' }];
    default:
      return [];
  }
}

/**
 * The users a `message.update` from a mark-read goes to: the plugin sends it to both
 * participants (its web chat replaces the message in the reader's open thread too). The domain
 * records it for the message's sender; the reader's copy is added here.
 */
export function withReaderCopy(events: PusherEventFor[], event: DomainEvent): PusherEventFor[] {
  if (event.type !== 'message.update' || event.removed || event.readBy === undefined) return events;
  return [...events, { userId: event.readBy, name: 'message.update' }];
}

export type PusherStatus = 'pending' | 'sent' | 'failed';

/** One event for one user's channel, as the Pusher outbox holds it. */
export interface PusherDelivery {
  id: number;
  userId: number;
  name: PusherEventName;
  /** The DomainEvent it came from, JSON text. */
  payload: string;
  createdAt: number;
  status: PusherStatus;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  sentAt: number | null;
}

/** The Pusher outbox: written with the change (the store's EventRecorder), read by the Pusher sender. */
export interface PusherOutbox {
  /** Pending deliveries due by `now`, at most `limit`, oldest first, each leased until `leaseUntil` (as WebhookOutbox.claimDue). */
  claimDue(now: number, leaseUntil: number, limit: number): Promise<PusherDelivery[]>;
  /** Pusher took them. */
  sent(ids: readonly number[], at: number, note: string | null): Promise<void>;
  /** A failed attempt: retried at `retryAt`, or kept as failed when null. */
  attemptFailed(id: number, attempts: number, retryAt: number | null, error: string): Promise<void>;
  /** The deliveries, newest first, of a status when given, with an id below `beforeId` when given (the next page). */
  list(o: { status?: PusherStatus; beforeId?: number; limit: number }): Promise<PusherDelivery[]>;
  /**
   * Sends the given failed deliveries again, due now; how many. With `audit`, its row is written in
   * the same transaction when any was sent again.
   */
  retry(ids: number[], now: number, audit?: AuditRecord): Promise<number>;
  /** Forgets the finished deliveries created before `before`; how many. */
  prune(before: number): Promise<number>;
  /**
   * The user's unread messages in every conversation they have not left (the plugin's
   * ChatController::has_unread_messages, its header badge's count).
   */
  unreadTotal(userId: number): Promise<number>;
}

/** What the recorder asks before writing Pusher rows: whether an app is set now (a site's settings may change). */
export interface PusherQueueing {
  on(): boolean;
}

/** What the sender counted since it started (`/metrics`). */
export interface PusherStats {
  sent: number;
  /** Sent without their attachments' metadata or text, to fit Pusher's 10 KB. */
  trimmed: number;
  failedAttempts: number;
  failed: number;
  /** Seconds from the change to Pusher's answer, of each event sent. */
  latencies: number[];
}

/** The Pusher app a WordPress site's `rtcl_chat_settings` name, when `pusher_enable` is `yes` and every field is filled. */
export interface SitePusherApp {
  appId: string;
  key: string;
  secret: string;
  cluster: string;
}
