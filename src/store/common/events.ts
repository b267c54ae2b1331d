/**
 * The event log (migration 011) as every database reads it, the recorder the use cases write
 * through, and the in-process signals of a store whose commits happen in this process (SQLite).
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import { STREAMED_EVENTS, type DomainEvent, type EventType, type LoggedEvent } from '../../domain/events.js';
import type {
  EventLog,
  EventRecorder,
  EventSignals,
  EventTicket,
  EventTicketRepository,
  WebhookDelivery,
  WebhookOutbox,
  WebhookStatus,
} from '../../domain/ports.js';
import { withAudit } from './server-api.js';
import { claimDue, deliveryOf } from './outbox.js';
import { prepare, type QueryRunner } from './prepared.js';
import { queueMail } from './mail.js';
import { queuePush } from './push.js';
import { queuePusher } from './pusher.js';
import type { Database } from './schema.js';
import type { MailQueueing } from './store.js';
import { pusherEventsOf, withReaderCopy, type PusherEventName, type PusherQueueing } from '../../domain/pusher.js';

const q = {
  after: prepare((db, userId: number, afterSeq: number, limit: number) =>
    db
      .selectFrom('events')
      .select(['seq', 'type', 'payload', 'created_at'])
      .where('user_id', '=', userId)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit),
  ),
  lastSeq: prepare((db, userId: number) => db.selectFrom('event_sequences').select('seq').where('user_id', '=', userId)),
  prune: prepare((db, before: number) => db.deleteFrom('events').where('created_at', '<', before)),
  // SQLite's two statements; PostgreSQL says it in one (postgres/repositories.ts).
  nextSeq: prepare((db, userId: number) =>
    db
      .insertInto('event_sequences')
      .values({ user_id: userId, seq: 1 })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ seq: sql<number>`event_sequences.seq + 1` })),
  ),
  insertEvent: prepare((db, userId: number, type: string, payload: string, at: number) =>
    db
      .insertInto('events')
      .columns(['user_id', 'seq', 'type', 'payload', 'created_at'])
      .expression(
        db
          .selectFrom('event_sequences')
          .select([
            'user_id',
            'seq',
            sql<string>`${type}`.as('type'),
            sql<string>`${payload}`.as('payload'),
            sql<number>`${at}`.as('created_at'),
          ])
          .where('user_id', '=', userId),
      ),
  ),
};

/** Numbers the user's next event and stores it, in the caller's transaction (SQLite). */
export async function logEventInTwoStatements(run: QueryRunner, userId: number, type: EventType, payload: string, at: number) {
  await q.nextSeq(run, userId);
  await q.insertEvent(run, userId, type, payload, at);
}

/** How a database writes one event in the log, inside the transaction `run` belongs to. */
export type LogEvent = (run: QueryRunner, userId: number, type: EventType, payload: string, at: number) => Promise<void>;

const streamed = new Set<EventType>(STREAMED_EVENTS);

/**
 * What an event leaves in a database, written in the transaction of the change that caused it.
 * `payload` is the DomainEvent as JSON text.
 */
export interface EventWrites {
  /** The next event of the user's log. */
  logEvent(userId: number, type: EventType, payload: string, at: number): Promise<void>;
  /** One webhook outbox row per receiver, each with the event's Standard Webhooks id `messageId`. */
  queueWebhooks(messageId: string, urls: readonly string[], userId: number, type: EventType, payload: string, at: number): Promise<void>;
  /** The push of the new message `messageId` for its recipient, when they have a device. */
  queuePush(userId: number, messageId: number, payload: string, at: number): Promise<void>;
  /** The new message in its recipient's pending mail about the conversation, due at `dueAt` when new (mail.ts). */
  queueMail(userId: number, conId: number, messageId: number, at: number, dueAt: number): Promise<void>;
  /** The Pusher event `name` for the user's channel (docs/pusher.md). */
  queuePusher(userId: number, name: PusherEventName, payload: string, at: number): Promise<void>;
  /** EventRecorder.hold: locks the user's sequence row; absent where one write transaction runs at a time. */
  holdLog?(userId: number): Promise<void>;
}

/** Whether recording an event of this type writes anything: its user's log (the streamed types), or the webhooks' outbox. */
export function leavesRows(type: EventType, webhookUrls: readonly string[]): boolean {
  return streamed.has(type) || webhookUrls.length > 0;
}

/** With a Pusher app set, the plugin's Pusher events the event becomes, each in the outbox (domain/pusher.ts). */
async function queuePusherEvents(writes: EventWrites, userId: number, event: DomainEvent, payload: string, at: number) {
  for (const to of withReaderCopy(pusherEventsOf(userId, event), event)) await writes.queuePusher(to.userId, to.name, payload, at);
}

/**
 * The use cases' EventRecorder over a database's writes: the user's log for the streamed
 * events, one outbox row per webhook receiver for every event, and with `push` a push outbox row
 * for a new message's recipient. `recorded` is told of each user an event was logged for, before
 * the commit. With `mail` (mail on), a new message to a recipient not known online here also joins
 * their pending mail. With `pusher` on, the Pusher events it becomes join the Pusher outbox.
 */
export function recordEvents(
  writes: EventWrites,
  webhookUrls: readonly string[],
  recorded?: (userId: number) => void,
  push = false,
  mail?: MailQueueing,
  pusher?: PusherQueueing,
): EventRecorder {
  return {
    ...(writes.holdLog && { hold: writes.holdLog }),
    async record(userId: number, event: DomainEvent, at: number) {
      // A favourite without webhooks leaves nothing: the toggle's path pays for no JSON.
      if (!leavesRows(event.type, webhookUrls)) return;
      const payload = JSON.stringify(event);
      if (webhookUrls.length > 0) await writes.queueWebhooks(`msg_${randomUUID()}`, webhookUrls, userId, event.type, payload, at);
      if (!streamed.has(event.type)) return;
      await writes.logEvent(userId, event.type, payload, at);
      recorded?.(userId);
      if (push && event.type === 'message.new') await writes.queuePush(userId, event.message.id, payload, at);
      if (mail && event.type === 'message.new' && !mail.onlineHere(userId, at))
        await writes.queueMail(userId, event.message.conId, event.message.id, at, at + mail.delayMs);
      if (pusher?.on()) await queuePusherEvents(writes, userId, event, payload, at);
    },
  };
}

/** How a database writes a user's log: an event, and (EventWrites.holdLog) the lock on it. */
export interface LogWrites {
  logEvent: LogEvent;
  holdLog?: (run: QueryRunner, userId: number) => Promise<void>;
}

/** The EventRecorder over a transaction's runner (SQLite, PostgreSQL); push.ts writes the push row. */
export function eventRecorder(
  run: QueryRunner,
  { logEvent, holdLog }: LogWrites,
  webhookUrls: readonly string[],
  recorded?: (userId: number) => void,
  push = false,
  mail?: MailQueueing,
  pusher?: PusherQueueing,
): EventRecorder {
  const writes: EventWrites = {
    ...(holdLog && { holdLog: (userId: number) => holdLog(run, userId) }),
    logEvent: (userId, type, payload, at) => logEvent(run, userId, type, payload, at),
    queueWebhooks: (messageId, urls, userId, type, payload, at) => queueWebhooks(run, messageId, urls, userId, type, payload, at),
    queuePush: (userId, messageId, payload, at) => queuePush(run, userId, messageId, payload, at),
    queueMail: (userId, conId, messageId, at, dueAt) => queueMail(run, userId, conId, messageId, at, dueAt),
    queuePusher: (userId, name, payload, at) => queuePusher(run, userId, name, payload, at),
  };
  return recordEvents(writes, webhookUrls, recorded, push, mail, pusher);
}

/** An event log row as the port gives it; numbers may come as text (bigint columns). */
export function toLoggedEvent(r: { seq: number | string; type: string; payload: string; created_at: number | string }): LoggedEvent {
  return { seq: Number(r.seq), type: r.type as EventType, payload: r.payload, createdAt: Number(r.created_at) };
}

export function eventLog(run: QueryRunner): EventLog {
  return {
    async after(userId, afterSeq, limit): Promise<LoggedEvent[]> {
      return (await q.after(run, userId, afterSeq, limit)).rows.map(toLoggedEvent);
    },
    async lastSeq(userId) {
      return Number((await q.lastSeq(run, userId)).rows[0]?.seq ?? 0);
    },
    async prune(before) {
      return Number((await q.prune(run, before)).numAffectedRows ?? 0);
    },
  };
}

/**
 * Signals for a store whose transactions commit in this process: the users whose events a
 * transaction recorded are told once it commits. A rolled-back transaction's users are told
 * with the next commit's, for nothing: their readers find nothing new.
 */
export class LocalEventSignals implements EventSignals {
  private pending = new Set<number>();
  private readonly listeners = new Set<(userIds: number[]) => void>();

  recorded = (userId: number): void => {
    this.pending.add(userId);
  };

  /** After a commit. */
  committed = (): void => {
    if (this.pending.size === 0) return;
    const users = [...this.pending];
    this.pending = new Set();
    for (const listener of this.listeners) listener(users);
  };

  subscribe(onUsers: (userIds: number[]) => void): () => void {
    this.listeners.add(onUsers);
    return () => this.listeners.delete(onUsers);
  }
}

export type EventTicketRow = Selectable<Database['event_tickets']>;

/** A ticket row as the port gives it; numbers may come as text (bigint columns). */
export function toEventTicket(row: EventTicketRow): EventTicket {
  return {
    digest: row.digest,
    userId: Number(row.user_id),
    tokenDigest: row.token_digest,
    tokenExpiresAt: Number(row.token_expires_at),
    expiresAt: Number(row.expires_at),
  };
}

export function eventTicketRepository(db: Kysely<Database>): EventTicketRepository {
  return {
    async issue(t) {
      await db
        .insertInto('event_tickets')
        .values({
          digest: t.digest,
          user_id: t.userId,
          token_digest: t.tokenDigest,
          token_expires_at: t.tokenExpiresAt,
          expires_at: t.expiresAt,
        })
        .execute();
    },
    async take(digest, now) {
      // The delete is the single use: of two takers of one ticket, one deletes the row.
      const row = await db.deleteFrom('event_tickets').where('digest', '=', digest).returningAll().executeTakeFirst();
      if (!row || Number(row.expires_at) <= now) return undefined;
      return toEventTicket(row);
    },
    async forgetExpired(now) {
      return Number((await db.deleteFrom('event_tickets').where('expires_at', '<=', now).executeTakeFirst()).numDeletedRows);
    },
  };
}

export const WEBHOOK_COLUMNS = [
  'id',
  'message_id',
  'url',
  'type',
  'user_id',
  'payload',
  'created_at',
  'window_from',
  'status',
  'attempts',
  'next_attempt_at',
  'last_error',
  'delivered_at',
] as const;

export type WebhookRow = Selectable<Database['webhook_outbox']>;

/** A webhook outbox row as the port gives it; numbers may come as text (bigint columns). */
export function toWebhookDelivery(r: WebhookRow): WebhookDelivery {
  return {
    ...deliveryOf<WebhookStatus>(r),
    messageId: r.message_id,
    url: r.url,
    type: r.type as EventType,
    payload: r.payload,
    windowFrom: Number(r.window_from),
    deliveredAt: r.delivered_at === null ? null : Number(r.delivered_at),
  };
}

const outboxInsert = prepare((db, messageId: string, url: string, type: string, userId: number, payload: string, at: number) =>
  db.insertInto('webhook_outbox').values({
    message_id: messageId,
    url,
    type,
    user_id: userId,
    payload,
    created_at: at,
    window_from: at,
    status: 'pending',
    attempts: 0,
    next_attempt_at: at,
    last_error: null,
    delivered_at: null,
  }),
);

/** One outbox row per receiver for the event, in the caller's transaction. */
async function queueWebhooks(
  run: QueryRunner,
  messageId: string,
  urls: readonly string[],
  userId: number,
  type: EventType,
  payload: string,
  at: number,
) {
  for (const url of urls) await outboxInsert(run, messageId, url, type, userId, payload, at);
}

/**
 * The outbox over Kysely. `skipLocked`: PostgreSQL's claim skips the rows another instance is
 * claiming (FOR UPDATE SKIP LOCKED); SQLite's one writer needs nothing of the kind.
 */
export function webhookOutbox(db: Kysely<Database>, skipLocked: boolean): WebhookOutbox {
  return {
    claimDue: async (now, leaseUntil, limit) =>
      (await claimDue<WebhookRow>(db, 'webhook_outbox', WEBHOOK_COLUMNS, skipLocked, now, leaseUntil, limit)).map(toWebhookDelivery),
    async delivered(id, now) {
      await db
        .updateTable('webhook_outbox')
        .set({ status: 'delivered', delivered_at: now, last_error: null })
        .where('id', '=', id)
        .execute();
    },
    async attemptFailed(id, attempts, retryAt, error) {
      await db
        .updateTable('webhook_outbox')
        .set({ attempts, last_error: error.slice(0, 500), ...(retryAt === null ? { status: 'failed' } : { next_attempt_at: retryAt }) })
        .where('id', '=', id)
        .execute();
    },
    async list({ status, since, beforeId, limit }) {
      let q = db.selectFrom('webhook_outbox').select(WEBHOOK_COLUMNS).orderBy('id', 'desc').limit(limit);
      if (status) q = q.where('status', '=', status);
      if (since !== undefined) q = q.where('created_at', '>=', since);
      if (beforeId !== undefined) q = q.where('id', '<', beforeId);
      return (await q.execute()).map(toWebhookDelivery);
    },
    retry: (ids, now, audit) =>
      withAudit(db, audit, async (db) => {
        let q = db
          .updateTable('webhook_outbox')
          .set({ status: 'pending', attempts: 0, next_attempt_at: now, window_from: now })
          .where('status', '=', 'failed');
        if (ids.length > 0) q = q.where('id', 'in', ids);
        return Number((await q.executeTakeFirst()).numUpdatedRows);
      }),
    async replay(since, now) {
      const result = await db
        .updateTable('webhook_outbox')
        .set({ status: 'pending', attempts: 0, next_attempt_at: now, window_from: now })
        .where('created_at', '>=', since)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async prune(before) {
      // By webhook_outbox_by_time: the rows written before, of which only the delivered go.
      const result = await db
        .deleteFrom('webhook_outbox')
        .where('created_at', '<', before)
        .where('status', '=', 'delivered')
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
