/**
 * E-mail's tables (migration 021) as SQLite and PostgreSQL read them: the mail outbox and the row
 * the message transaction writes into it, until when users are online, and their choice of mail.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { MailDelivery, MailOutbox, MailPreferenceRepository, MailStatus, PresenceRepository } from '../../domain/mail.js';
import { claimDue, deliveryOf } from './outbox.js';
import { withAudit } from './server-api.js';
import { prepare, type QueryRunner } from './prepared.js';
import type { Database } from './schema.js';

/** The key that makes one pending mail per recipient and conversation. */
export const pendingKey = (userId: number, conId: number) => `${userId}:${conId}`;

/**
 * The conversation's pending mail to the recipient, with the new message in it: a new row due at
 * `dueAt`, or the pending one grown to the message (its due time stays: messages that come
 * within the delay go in one mail).
 */
const queue = prepare((db, userId: number, conId: number, key: string, messageId: number, at: number, dueAt: number) =>
  db
    .insertInto('mail_outbox')
    .values({
      user_id: userId,
      con_id: conId,
      pending_key: key,
      first_message_id: messageId,
      last_message_id: messageId,
      created_at: at,
      status: 'pending',
      attempts: 0,
      next_attempt_at: dueAt,
    })
    .onConflict((oc) => oc.column('pending_key').doUpdateSet({ last_message_id: (eb) => eb.ref('excluded.last_message_id') })),
);

/** In the message's transaction: the mail about it for its recipient (`message.new`'s user). */
export async function queueMail(run: QueryRunner, userId: number, conId: number, messageId: number, at: number, dueAt: number) {
  // The key is an argument: a prepared statement is built once, with placeholders for its arguments.
  await queue(run, userId, conId, pendingKey(userId, conId), messageId, at, dueAt);
}

export const MAIL_COLUMNS = [
  'id',
  'user_id',
  'con_id',
  'first_message_id',
  'last_message_id',
  'created_at',
  'status',
  'attempts',
  'next_attempt_at',
  'last_error',
  'sent_at',
] as const;

export type MailRow = Pick<Selectable<Database['mail_outbox']>, (typeof MAIL_COLUMNS)[number]>;

/** A mail outbox row as the port gives it; numbers may come as text (bigint columns). */
export function toMailDelivery(r: MailRow): MailDelivery {
  return {
    ...deliveryOf<MailStatus>(r),
    conId: Number(r.con_id),
    firstMessageId: Number(r.first_message_id),
    lastMessageId: Number(r.last_message_id),
    sentAt: r.sent_at === null ? null : Number(r.sent_at),
  };
}

/** `skipLocked`: PostgreSQL's claim skips the rows another instance is claiming, and its finish locks the row. */
export function mailOutbox(db: Kysely<Database>, skipLocked: boolean): MailOutbox {
  return {
    claimDue: async (now, leaseUntil, limit) =>
      (await claimDue<MailRow>(db, 'mail_outbox', MAIL_COLUMNS, skipLocked, now, leaseUntil, limit)).map(toMailDelivery),
    async lastSentAt(userId, conId) {
      const row = await db
        .selectFrom('mail_outbox')
        .select((eb) => eb.fn.max('sent_at').as('at'))
        .where('user_id', '=', userId)
        .where('con_id', '=', conId)
        .where('status', '=', 'sent')
        .executeTakeFirst();
      return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
    },
    async postpone(id, until) {
      await db.updateTable('mail_outbox').set({ next_attempt_at: until }).where('id', '=', id).execute();
    },
    async finish(id, status, note, upTo, now, nextDueAt) {
      await db.transaction().execute(async (trx) => {
        let read = trx.selectFrom('mail_outbox').select(['user_id', 'con_id', 'last_message_id']).where('id', '=', id);
        // The message transaction's upsert waits for this one: it then grows the new pending row.
        if (skipLocked) read = read.forUpdate();
        const row = await read.executeTakeFirst();
        if (!row) return;
        const queued = Number(row.last_message_id);
        await trx
          .updateTable('mail_outbox')
          .set({
            status,
            last_error: note,
            pending_key: null,
            last_message_id: Math.min(queued, upTo),
            ...(status === 'sent' ? { sent_at: now } : {}),
          })
          .where('id', '=', id)
          .execute();
        if (queued <= upTo) return;
        // Messages that came while it was being sent: a mail of their own, later.
        await trx
          .insertInto('mail_outbox')
          .values({
            user_id: row.user_id,
            con_id: row.con_id,
            pending_key: pendingKey(Number(row.user_id), Number(row.con_id)),
            first_message_id: upTo + 1,
            last_message_id: queued,
            created_at: now,
            status: 'pending',
            attempts: 0,
            next_attempt_at: nextDueAt,
          })
          .execute();
      });
    },
    async attemptFailed(id, attempts, retryAt, error) {
      await db
        .updateTable('mail_outbox')
        .set({
          attempts,
          last_error: error.slice(0, 500),
          ...(retryAt === null ? { status: 'failed', pending_key: null } : { next_attempt_at: retryAt }),
        })
        .where('id', '=', id)
        .execute();
    },
    async list({ status, beforeId, limit }) {
      let q = db.selectFrom('mail_outbox').select(MAIL_COLUMNS).orderBy('id', 'desc').limit(limit);
      if (status) q = q.where('status', '=', status);
      if (beforeId !== undefined) q = q.where('id', '<', beforeId);
      return (await q.execute()).map(toMailDelivery);
    },
    retry: (ids, now, audit) => withAudit(db, audit, (db) => retryMail(db, ids, now)),
    async prune(before) {
      const result = await db
        .deleteFrom('mail_outbox')
        .where('status', '<>', 'pending')
        .where('created_at', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

async function retryMail(db: Kysely<Database>, ids: number[], now: number) {
  let q = db.selectFrom('mail_outbox').select(['id', 'user_id', 'con_id']).where('status', '=', 'failed');
  if (ids.length > 0) q = q.where('id', 'in', ids);
  let n = 0;
  for (const row of await q.execute()) {
    // A conversation with a mail pending already: that one carries the messages (they are still unread).
    const result = await db
      .updateTable('mail_outbox')
      .set({ status: 'pending', attempts: 0, next_attempt_at: now, pending_key: pendingKey(Number(row.user_id), Number(row.con_id)) })
      .where('id', '=', row.id)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('mail_outbox as p')
              .select(sql`1`.as('one'))
              .where('p.pending_key', '=', pendingKey(Number(row.user_id), Number(row.con_id))),
          ),
        ),
      )
      .executeTakeFirst();
    n += Number(result.numUpdatedRows);
  }
  return n;
}

/** Rows per upsert: two parameters each, well under SQLite's and PostgreSQL's limits. */
const PRESENCE_ROWS_PER_STATEMENT = 500;

/** One upsert of the users' `until`s; a later time already stored stays. */
async function writePresence(db: Kysely<Database>, entries: readonly { userId: number; until: number }[]): Promise<void> {
  await db
    .insertInto('presence')
    .values(entries.map((e) => ({ user_id: e.userId, online_until: e.until })))
    .onConflict((oc) =>
      oc
        .column('user_id')
        .doUpdateSet({ online_until: (eb) => eb.ref('excluded.online_until') })
        .where('presence.online_until', '<', (eb) => eb.ref('excluded.online_until')),
    )
    .execute();
}

export function presenceRepository(db: Kysely<Database>): PresenceRepository {
  return {
    seen(userId, until) {
      return writePresence(db, [{ userId, until }]);
    },
    async seenAll(entries) {
      // In user order, so two instances' batches take their row locks in one order (PostgreSQL).
      const sorted = [...entries].sort((a, b) => a.userId - b.userId);
      for (let i = 0; i < sorted.length; i += PRESENCE_ROWS_PER_STATEMENT)
        await writePresence(db, sorted.slice(i, i + PRESENCE_ROWS_PER_STATEMENT));
    },
    async onlineUntil(userId) {
      const row = await db.selectFrom('presence').select('online_until').where('user_id', '=', userId).executeTakeFirst();
      return row ? Number(row.online_until) : undefined;
    },
    async chatPartners(userId, others) {
      if (others.length === 0) return [];
      const rows = await db
        .selectFrom('conversations')
        .select(sql<number>`case when sender_id = ${userId} then recipient_id else sender_id end`.as('partner'))
        .where((eb) =>
          eb.or([
            eb.and([eb('sender_id', '=', userId), eb('recipient_id', 'in', others)]),
            eb.and([eb('recipient_id', '=', userId), eb('sender_id', 'in', others)]),
          ]),
        )
        .distinct()
        .execute();
      return rows.map((r) => Number(r.partner));
    },
  };
}

export function mailPreferenceRepository(db: Kysely<Database>): MailPreferenceRepository {
  return {
    async emailOn(userId) {
      const row = await db.selectFrom('mail_preferences').select('email').where('user_id', '=', userId).executeTakeFirst();
      return row ? Number(row.email) !== 0 : true;
    },
    async setEmail(userId, on) {
      await db
        .insertInto('mail_preferences')
        .values({ user_id: userId, email: on ? 1 : 0 })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ email: on ? 1 : 0 }))
        .execute();
    },
    async hidingPresence(userIds) {
      if (userIds.length === 0) return new Set();
      const rows = await db
        .selectFrom('mail_preferences')
        .select('user_id')
        .where('user_id', 'in', userIds)
        .where('show_presence', '=', 0)
        .execute();
      return new Set(rows.map((r) => Number(r.user_id)));
    },
    async setShowPresence(userId, shown) {
      await db
        .insertInto('mail_preferences')
        .values({ user_id: userId, email: 1, show_presence: shown ? 1 : 0 })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ show_presence: shown ? 1 : 0 }))
        .execute();
    },
  };
}
