/**
 * The event log on a WordPress database (`{prefix}souk_events`, migrations/002-souk-events.ts) as the
 * streams read it, the recorder the use cases write through in the unit of work's transaction
 * (index.ts), and the streams' tickets. What is recorded and where is decided once, for every
 * database, by the shared recorder (store/common/events.ts); this file only says it in MySQL.
 */
import { sql } from 'kysely';
import type { EventLog, EventRecorder, EventTicketRepository } from '../../domain/ports.js';
import { recordEvents, toEventTicket, toLoggedEvent, type EventTicketRow, type EventWrites } from '../common/events.js';
import { rows, statement, T, type Db, type MysqlContext } from './context.js';
import { queueMail } from './mail.js';
import { queuePush } from './push.js';
import { queuePusher } from './pusher.js';
import type { PusherQueueing } from '../../domain/pusher.js';
import { queueWebhook } from './webhooks.js';
import type { MailQueueing } from '../common/store.js';

type EventRow = { seq: number | string; type: string; payload: string; created_at: number | string };

const q = {
  // Updating the user's row locks it to the commit: their next event waits, so one user's events
  // commit in number order.
  nextSeq: statement(
    (ctx, _variant, userId: number) =>
      sql`insert into ${T(ctx.t.soukEventSequences)} (user_id, seq) values (${userId}, 1) on duplicate key update seq = seq + 1`,
  ),
  // EventRecorder.hold: the lock nextSeq's update takes (a user without a row has nothing logged to overtake).
  holdSeq: statement(
    (ctx, _variant, userId: number) => sql`select seq from ${T(ctx.t.soukEventSequences)} where user_id = ${userId} for update`,
  ),
  // Under READ COMMITTED the select reads the row as this transaction left it (it holds the lock).
  insertEvent: statement(
    (ctx, _variant, userId: number, type: string, payload: string, at: number) =>
      sql`insert into ${T(ctx.t.soukEvents)} (user_id, seq, type, payload, created_at)
        select user_id, seq, ${type}, ${payload}, ${at} from ${T(ctx.t.soukEventSequences)} where user_id = ${userId}`,
  ),
  after: statement(
    (ctx, _variant, userId: number, afterSeq: number, limit: number) =>
      sql<EventRow>`select seq, type, payload, created_at from ${T(ctx.t.soukEvents)}
        where user_id = ${userId} and seq > ${afterSeq} order by seq limit ${limit}`,
  ),
  lastSeq: statement(
    (ctx, _variant, userId: number) =>
      sql<{ seq: number | string }>`select seq from ${T(ctx.t.soukEventSequences)} where user_id = ${userId}`,
  ),
};

/**
 * The use cases' EventRecorder in a unit of work: `enter` begins its transaction (and takes the
 * writer's lock) before the first write, as every write of the unit does (repositories.ts).
 */
export function mysqlEventRecorder(
  db: Db,
  ctx: MysqlContext,
  enter: () => Promise<void>,
  o: {
    webhookUrls: readonly string[];
    push: boolean;
    mail?: MailQueueing | undefined;
    pusher?: PusherQueueing | undefined;
    recorded: (userId: number) => void;
  },
): EventRecorder {
  const writes: EventWrites = {
    async holdLog(userId) {
      await enter();
      await q.holdSeq(db, ctx, '', userId);
    },
    async logEvent(userId, type, payload, at) {
      await enter();
      await q.nextSeq(db, ctx, '', userId);
      await q.insertEvent(db, ctx, '', userId, type, payload, at);
    },
    async queueWebhooks(messageId, urls, userId, type, payload, at) {
      await enter();
      for (const url of urls) await queueWebhook(db, ctx, messageId, url, type, userId, payload, at);
    },
    async queuePush(userId, messageId, payload, at) {
      await enter();
      await queuePush(db, ctx, userId, messageId, payload, at);
    },
    async queueMail(userId, conId, messageId, at, dueAt) {
      await enter();
      await queueMail(db, ctx, userId, conId, messageId, at, dueAt);
    },
    async queuePusher(userId, name, payload, at) {
      await enter();
      await queuePusher(db, ctx, userId, name, payload, at);
    },
  };
  return recordEvents(writes, o.webhookUrls, o.recorded, o.push, o.mail, o.pusher);
}

export function mysqlEventLog(db: Db, ctx: MysqlContext): EventLog {
  return {
    after: async (userId, afterSeq, limit) => (await q.after(db, ctx, '', userId, afterSeq, limit)).rows.map(toLoggedEvent),
    lastSeq: async (userId) => Number((await q.lastSeq(db, ctx, '', userId)).rows[0]?.seq ?? 0),
    async prune(before) {
      // The sequences stay: a number is never given twice.
      const result = await sql`delete from ${T(ctx.t.soukEvents)} where created_at < ${before}`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}

export function mysqlEventTickets(db: Db, ctx: MysqlContext): EventTicketRepository {
  const table = T(ctx.t.soukEventTickets);
  return {
    async issue(t) {
      await sql`insert into ${table} (digest, user_id, token_digest, token_expires_at, expires_at)
        values (${t.digest}, ${t.userId}, ${t.tokenDigest}, ${t.tokenExpiresAt}, ${t.expiresAt})`.execute(db);
    },
    async take(digest, now) {
      const [row] = await rows(
        db,
        sql<EventTicketRow>`select digest, user_id, token_digest, token_expires_at, expires_at from ${table} where digest = ${digest}`,
      );
      if (!row) return undefined;
      // The delete is the single use: of two takers of one ticket, one deletes the row.
      const deleted = await sql`delete from ${table} where digest = ${digest}`.execute(db);
      if (Number(deleted.numAffectedRows ?? 0) !== 1 || Number(row.expires_at) <= now) return undefined;
      return toEventTicket(row);
    },
    async forgetExpired(now) {
      const result = await sql`delete from ${table} where expires_at <= ${now}`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
