/**
 * The Pusher outbox (migration 025) as SQLite and PostgreSQL read it, and the row the change's
 * transaction writes into it (docs/pusher.md).
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { PusherDelivery, PusherEventName, PusherOutbox, PusherStatus } from '../../domain/pusher.js';
import { claimDue, deliveryOf } from './outbox.js';
import { withAudit } from './server-api.js';
import { kyselyRunner, prepare, type QueryRunner } from './prepared.js';
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
    ...deliveryOf<PusherStatus>(r),
    name: r.name as PusherEventName,
    payload: r.payload,
    sentAt: r.sent_at === null ? null : Number(r.sent_at),
  };
}

/**
 * The user's unread messages (PusherOutbox.unreadTotal), prepared: built once, it is read for every
 * `conversation.unread` claimed. Each side of the user's conversations alone, so that each is an
 * index seek (conversations_by_sender or _by_recipient, then messages_unread per conversation): an
 * OR of the two would scan the conversations.
 */
const unreadTotal = prepare((db, userId: number) => {
  const side = (mine: 'sender' | 'recipient', other: 'sender' | 'recipient') =>
    db
      .selectFrom('conversations as c')
      .innerJoin('messages as m', (j) =>
        j.onRef('m.con_id', '=', 'c.id').onRef('m.source_id', '=', `c.${other}_id`).on('m.is_read', '=', 0),
      )
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where(`c.${mine}_id`, '=', userId)
      .where(`c.${mine}_delete`, '=', 0);
  return db.selectNoFrom(sql<number | string>`(${side('sender', 'recipient')}) + (${side('recipient', 'sender')})`.as('n'));
});

/**
 * `skipLocked`: PostgreSQL's claim skips the rows another instance is claiming, as the other
 * outboxes'. `reads`: where the unread totals are read, straight on the driver where the store has one.
 */
export function pusherOutbox(db: Kysely<Database>, skipLocked: boolean, reads: QueryRunner = kyselyRunner(db)): PusherOutbox {
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
    async list({ status, beforeId, limit }) {
      let q = db.selectFrom('pusher_outbox').select(PUSHER_COLUMNS).orderBy('id', 'desc').limit(limit);
      if (status) q = q.where('status', '=', status);
      if (beforeId !== undefined) q = q.where('id', '<', beforeId);
      return (await q.execute()).map(toPusherDelivery);
    },
    retry: (ids, now, audit) =>
      withAudit(db, audit, async (db) => {
        let q = db
          .updateTable('pusher_outbox')
          .set({ status: 'pending', attempts: 0, next_attempt_at: now })
          .where('status', '=', 'failed');
        if (ids.length > 0) q = q.where('id', 'in', ids);
        return Number((await q.executeTakeFirst()).numUpdatedRows);
      }),
    async prune(before) {
      const result = await db
        .deleteFrom('pusher_outbox')
        .where('status', '<>', 'pending')
        .where('created_at', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async unreadTotal(userId) {
      return Number((await unreadTotal(reads, userId)).rows[0]?.n ?? 0);
    },
  };
}
