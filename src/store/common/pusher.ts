/**
 * The Pusher outbox (migration 025) as SQLite and PostgreSQL read it, and the row the change's
 * transaction writes into it (docs/pusher.md).
 */
import type { Kysely, Selectable } from 'kysely';
import type { PusherDelivery, PusherEventName, PusherOutbox, PusherStatus } from '../../domain/pusher.js';
import { claimDue } from './outbox.js';
import { prepare, type QueryRunner } from './prepared.js';
import type { Database } from './schema.js';

const queue = prepare((db, userId: number, name: string, payload: string, at: number) =>
  db.insertInto('pusher_outbox').values({
    user_id: userId,
    name,
    payload,
    created_at: at,
    status: 'pending',
    attempts: 0,
    next_attempt_at: at,
    last_error: null,
    sent_at: null,
  }),
);

/** In the change's transaction: the event `name` for the user's channel. */
export async function queuePusher(run: QueryRunner, userId: number, name: PusherEventName, payload: string, at: number): Promise<void> {
  await queue(run, userId, name, payload, at);
}

export const PUSHER_COLUMNS = [
  'id',
  'user_id',
  'name',
  'payload',
  'created_at',
  'status',
  'attempts',
  'next_attempt_at',
  'last_error',
  'sent_at',
] as const;

export type PusherRow = Selectable<Database['pusher_outbox']>;

/** A Pusher outbox row as the port gives it; numbers may come as text (bigint columns). */
export function toPusherDelivery(r: PusherRow): PusherDelivery {
  return {
    id: Number(r.id),
    userId: Number(r.user_id),
    name: r.name as PusherEventName,
    payload: r.payload,
    createdAt: Number(r.created_at),
    status: r.status as PusherStatus,
    attempts: Number(r.attempts),
    nextAttemptAt: Number(r.next_attempt_at),
    lastError: r.last_error,
    sentAt: r.sent_at === null ? null : Number(r.sent_at),
  };
}

/** `skipLocked`: PostgreSQL's claim skips the rows another instance is claiming, as the other outboxes'. */
export function pusherOutbox(db: Kysely<Database>, skipLocked: boolean): PusherOutbox {
  return {
    claimDue: async (now, leaseUntil, limit) =>
      (await claimDue<PusherRow>(db, 'pusher_outbox', PUSHER_COLUMNS, skipLocked, now, leaseUntil, limit)).map(toPusherDelivery),
    async sent(ids, at, note) {
      if (ids.length === 0) return;
      await db
        .updateTable('pusher_outbox')
        .set({ status: 'sent', sent_at: at, last_error: note })
        .where('id', 'in', [...ids])
        .execute();
    },
    async attemptFailed(id, attempts, retryAt, error) {
      await db
        .updateTable('pusher_outbox')
        .set({ attempts, last_error: error.slice(0, 500), ...(retryAt === null ? { status: 'failed' } : { next_attempt_at: retryAt }) })
        .where('id', '=', id)
        .execute();
    },
    async list({ status, limit }) {
      let q = db.selectFrom('pusher_outbox').select(PUSHER_COLUMNS).orderBy('id', 'desc').limit(limit);
      if (status) q = q.where('status', '=', status);
      return (await q.execute()).map(toPusherDelivery);
    },
    async prune(before) {
      const result = await db
        .deleteFrom('pusher_outbox')
        .where('status', '<>', 'pending')
        .where('created_at', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async unreadTotal(userId) {
      const row = await db
        .selectFrom('messages as m')
        .innerJoin('conversations as c', 'c.id', 'm.con_id')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where((eb) =>
          eb.or([
            eb.and([eb('c.sender_id', '=', userId), eb('c.sender_delete', '=', 0)]),
            eb.and([eb('c.recipient_id', '=', userId), eb('c.recipient_delete', '=', 0)]),
          ]),
        )
        .where('m.is_read', '=', 0)
        .where('m.source_id', '<>', userId)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}
