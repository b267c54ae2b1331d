/**
 * Push notifications' tables on a WordPress database (`{prefix}souk_push_devices`,
 * `{prefix}souk_push_outbox`): the devices' Expo tokens, the push outbox the message's
 * transaction writes (events.ts), read by the shared push sender (src/events/push.ts).
 */
import { sql } from 'kysely';
import type { PushDeviceRepository, PushOutbox } from '../../domain/push.js';
import { PUSH_COLUMNS, toPushDelivery, type PushRow } from '../common/push.js';
import { rows, statement, T, type Db, type MysqlContext } from './context.js';
import { attemptFailed, claimDue, filters, newestFirst, retryFailed } from './outbox.js';

/**
 * One outbox row for the new message's recipient, only when they have a device (nobody else's
 * messages fill the outbox); a second row for the same message and recipient is nothing (the
 * unique key, and an update that changes nothing).
 */
const queue = statement(
  (ctx, _variant, userId: number, messageId: number, payload: string, at: number) =>
    sql`insert into ${T(ctx.t.soukPushOutbox)} (user_id, message_id, payload, created_at, status, attempts, next_attempt_at)
      select ${userId}, ${messageId}, ${payload}, ${at}, 'pending', 0, ${at} from dual
      where exists (select 1 from ${T(ctx.t.soukPushDevices)} where user_id = ${userId})
      on duplicate key update id = id`,
);

/** In the message's transaction: the push for its recipient (`message.new`'s user). */
export async function queuePush(db: Db, ctx: MysqlContext, userId: number, messageId: number, payload: string, at: number) {
  await queue(db, ctx, '', userId, messageId, payload, at);
}

export function mysqlPushDevices(db: Db, ctx: MysqlContext): PushDeviceRepository {
  const table = T(ctx.t.soukPushDevices);
  // The user's tokens, most recently registered first.
  const tokensOf = async (trx: Db, userId: number) =>
    (await rows(trx, sql<{ token: string }>`select token from ${table} where user_id = ${userId} order by registered_at desc, token`)).map(
      (r) => r.token,
    );
  return {
    async register(device, maxPerUser) {
      const events = JSON.stringify(device.events);
      return db.transaction().execute(async (trx) => {
        // A token another user holds moves only once the session that registered it has expired.
        const [held] = await rows(
          trx,
          sql<{ user_id: number | string; session_expires_at: number | string }>`select user_id, session_expires_at from ${table}
            where token = ${device.token} for update`,
        );
        if (held && Number(held.user_id) !== device.userId && Number(held.session_expires_at) > device.registeredAt) return false;
        await sql`insert into ${table} (token, user_id, events, registered_at, session, session_expires_at)
          values (${device.token}, ${device.userId}, ${events}, ${device.registeredAt}, ${device.session}, ${device.sessionExpiresAt})
          on duplicate key update user_id = ${device.userId}, events = ${events}, registered_at = ${device.registeredAt},
            session = ${device.session}, session_expires_at = ${device.sessionExpiresAt}`.execute(trx);
        // The user's most recent `maxPerUser` stay; older ones go (a user who changed phones many times).
        const older = (await tokensOf(trx, device.userId)).slice(maxPerUser);
        if (older.length > 0)
          await sql`delete from ${table} where user_id = ${device.userId} and token in (${sql.join(older)})`.execute(trx);
        return true;
      });
    },
    async unbind(userId, session) {
      const result = await sql`delete from ${table} where user_id = ${userId} and session = ${session}`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
    tokensOf: (userId) => tokensOf(db, userId),
    async drop(userId, tokens) {
      if (tokens.length === 0) return 0;
      const result = await sql`delete from ${table} where user_id = ${userId} and token in (${sql.join(tokens)})`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}

export function mysqlPushOutbox(db: Db, ctx: MysqlContext): PushOutbox {
  const table = ctx.t.soukPushOutbox;
  return {
    claimDue: async (now, leaseUntil, limit) =>
      (await claimDue<PushRow>(db, table, PUSH_COLUMNS, now, leaseUntil, limit)).map(toPushDelivery),
    async finished(id, status, note) {
      await sql`update ${T(table)} set status = ${status}, last_error = ${note} where id = ${id}`.execute(db);
    },
    attemptFailed: (id, attempts, retryAt, error, reached) =>
      attemptFailed(db, table, id, attempts, retryAt, error, sql`, reached = ${JSON.stringify(reached)}`),
    list: async (limit, filter = {}) =>
      (await newestFirst<PushRow>(db, table, PUSH_COLUMNS, filters(filter.status, filter.beforeId), limit)).map(toPushDelivery),
    retry: (ids, now, audit) => retryFailed(db, ctx, table, ids, now, audit),
    async prune(before) {
      const result = await sql`delete from ${T(table)} where status <> 'pending' and created_at < ${before}`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
