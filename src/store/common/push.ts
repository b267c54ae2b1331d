/**
 * Push notifications' tables (migration 013) as SQLite and PostgreSQL read them: the devices'
 * tokens, the push outbox, and the row the message transaction writes into it.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { PushDelivery, PushDeviceRepository, PushOutbox, PushStatus } from '../../domain/push.js';
import { claimDue, deliveryOf } from './outbox.js';
import { withAudit } from './server-api.js';
import { prepare, type QueryRunner } from './prepared.js';
import type { Database } from './schema.js';

/**
 * One outbox row for the new message's recipient, only when they have a device (nobody else's
 * messages fill the outbox); a second row for the same message and recipient is nothing.
 * Parameters are cast: PostgreSQL cannot tell the type of a bare one in a select list.
 */
const queue = prepare((db, userId: number, messageId: number, payload: string, at: number) =>
  db
    .insertInto('push_outbox')
    .columns(['user_id', 'message_id', 'payload', 'created_at', 'status', 'attempts', 'next_attempt_at'])
    .expression(
      db
        .selectNoFrom([
          sql<number>`cast(${userId} as bigint)`.as('user_id'),
          sql<number>`cast(${messageId} as bigint)`.as('message_id'),
          sql<string>`cast(${payload} as text)`.as('payload'),
          sql<number>`cast(${at} as bigint)`.as('created_at'),
          sql<string>`'pending'`.as('status'),
          sql<number>`0`.as('attempts'),
          sql<number>`cast(${at} as bigint)`.as('next_attempt_at'),
        ])
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('push_devices')
              .select(sql`1`.as('one'))
              .where('user_id', '=', userId),
          ),
        ),
    )
    .onConflict((oc) => oc.columns(['user_id', 'message_id']).doNothing()),
);

/** In the message's transaction: the push for its recipient (`message.new`'s user). */
export async function queuePush(run: QueryRunner, userId: number, messageId: number, payload: string, at: number): Promise<void> {
  await queue(run, userId, messageId, payload, at);
}

export function pushDeviceRepository(db: Kysely<Database>): PushDeviceRepository {
  return {
    async register(device, maxPerUser) {
      return db.transaction().execute(async (trx) => {
        const row = {
          user_id: device.userId,
          events: JSON.stringify(device.events),
          registered_at: device.registeredAt,
          session: device.session,
          session_expires_at: device.sessionExpiresAt,
        };
        // One statement decides: the holder's own token, or one whose registering session has expired.
        const stored = await trx
          .insertInto('push_devices')
          .values({ token: device.token, ...row })
          .onConflict((oc) =>
            oc
              .column('token')
              .doUpdateSet(row)
              .where((eb) =>
                eb.or([eb('push_devices.user_id', '=', device.userId), eb('push_devices.session_expires_at', '<=', device.registeredAt)]),
              ),
          )
          .executeTakeFirst();
        if (Number(stored.numInsertedOrUpdatedRows ?? 0) === 0) return false;
        // The user's most recent `maxPerUser` stay; older ones go (a user who changed phones many times).
        const keep = trx
          .selectFrom('push_devices')
          .select('token')
          .where('user_id', '=', device.userId)
          .orderBy('registered_at', 'desc')
          .orderBy('token')
          .limit(maxPerUser);
        await trx
          .deleteFrom('push_devices')
          .where('user_id', '=', device.userId)
          .where('token', 'not in', (eb) => eb.selectFrom(keep.as('kept')).select('kept.token'))
          .execute();
        return true;
      });
    },
    async unbind(userId, session) {
      const result = await db.deleteFrom('push_devices').where('user_id', '=', userId).where('session', '=', session).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async tokensOf(userId) {
      const rows = await db
        .selectFrom('push_devices')
        .select('token')
        .where('user_id', '=', userId)
        .orderBy('registered_at', 'desc')
        .orderBy('token')
        .execute();
      return rows.map((r) => r.token);
    },
    async drop(userId, tokens) {
      if (tokens.length === 0) return 0;
      const result = await db.deleteFrom('push_devices').where('user_id', '=', userId).where('token', 'in', tokens).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export const PUSH_COLUMNS = [
  'id',
  'user_id',
  'message_id',
  'payload',
  'created_at',
  'status',
  'attempts',
  'next_attempt_at',
  'last_error',
  'reached',
] as const;

export type PushRow = Selectable<Database['push_outbox']>;

/** A push outbox row as the port gives it; numbers may come as text (bigint columns). */
export function toPushDelivery(r: PushRow): PushDelivery {
  return {
    ...deliveryOf<PushStatus>(r),
    messageId: Number(r.message_id),
    payload: r.payload,
    reached: parseReached(r.reached),
  };
}

/** The outbox's `reached` column: a JSON list of device marks; null (MySQL before an attempt) is none. */
function parseReached(text: string | null): string[] {
  if (text === null || text === '') return [];
  const list = JSON.parse(text) as unknown;
  return Array.isArray(list) ? list.filter((m): m is string => typeof m === 'string') : [];
}

/** `skipLocked`: PostgreSQL's claim skips the rows another instance is claiming, as the webhook outbox's. */
export function pushOutbox(db: Kysely<Database>, skipLocked: boolean): PushOutbox {
  return {
    claimDue: async (now, leaseUntil, limit) =>
      (await claimDue<PushRow>(db, 'push_outbox', PUSH_COLUMNS, skipLocked, now, leaseUntil, limit)).map(toPushDelivery),
    async finished(id, status, note) {
      await db.updateTable('push_outbox').set({ status, last_error: note }).where('id', '=', id).execute();
    },
    async attemptFailed(id, attempts, retryAt, error, reached) {
      await db
        .updateTable('push_outbox')
        .set({
          attempts,
          last_error: error.slice(0, 500),
          reached: JSON.stringify(reached),
          ...(retryAt === null ? { status: 'failed' } : { next_attempt_at: retryAt }),
        })
        .where('id', '=', id)
        .execute();
    },
    async list(limit, filter = {}) {
      let q = db.selectFrom('push_outbox').select(PUSH_COLUMNS).orderBy('id', 'desc').limit(limit);
      if (filter.status) q = q.where('status', '=', filter.status);
      if (filter.beforeId !== undefined) q = q.where('id', '<', filter.beforeId);
      return (await q.execute()).map(toPushDelivery);
    },
    retry: (ids, now, audit) =>
      withAudit(db, audit, async (db) => {
        let q = db.updateTable('push_outbox').set({ status: 'pending', attempts: 0, next_attempt_at: now }).where('status', '=', 'failed');
        if (ids.length > 0) q = q.where('id', 'in', ids);
        return Number((await q.executeTakeFirst()).numUpdatedRows);
      }),
    async prune(before) {
      const result = await db
        .deleteFrom('push_outbox')
        .where('status', '<>', 'pending')
        .where('created_at', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
