/**
 * The Pusher outbox on a WordPress database (`{prefix}souk_pusher_outbox`), written in the
 * change's transaction (events.ts) and read by the shared Pusher sender (src/events/pusher.ts);
 * and the site's own Pusher app, `rtcl_chat_settings` as the plugin reads it (RtclPusher).
 */
import { sql } from 'kysely';
import type { PusherEventName, PusherOutbox, SitePusherApp } from '../../domain/pusher.js';
import { PUSHER_COLUMNS, toPusherDelivery, type PusherRow } from '../common/pusher.js';
import { rows, statement, T, type Db, type MysqlContext } from './context.js';
import { attemptFailed, claimDue, filters, newestFirst, retryFailed } from './outbox.js';
import { phpObject } from './site.js';

const queue = statement(
  (ctx, _variant, userId: number, name: string, payload: string, at: number) =>
    sql`insert into ${T(ctx.t.soukPusherOutbox)} (user_id, name, payload, created_at, status, attempts, next_attempt_at)
      values (${userId}, ${name}, ${payload}, ${at}, 'pending', 0, ${at})`,
);

/** In the change's transaction: the event `name` for the user's channel. */
export async function queuePusher(db: Db, ctx: MysqlContext, userId: number, name: PusherEventName, payload: string, at: number) {
  await queue(db, ctx, '', userId, name, payload, at);
}

export function mysqlPusherOutbox(db: Db, ctx: MysqlContext): PusherOutbox {
  const table = ctx.t.soukPusherOutbox;
  return {
    claimDue: async (now, leaseUntil, limit) =>
      (await claimDue<PusherRow>(db, table, PUSHER_COLUMNS, now, leaseUntil, limit)).map(toPusherDelivery),
    async sent(ids, at, note) {
      if (ids.length === 0) return;
      await sql`update ${T(table)} set status = 'sent', sent_at = ${at}, last_error = ${note}
        where id in (${sql.join([...ids])})`.execute(db);
    },
    attemptFailed: (id, attempts, retryAt, error) => attemptFailed(db, table, id, attempts, retryAt, error),
    list: async ({ status, beforeId, limit }) =>
      (await newestFirst<PusherRow>(db, table, PUSHER_COLUMNS, filters(status, beforeId), limit)).map(toPusherDelivery),
    retry: (ids, now, audit) => retryFailed(db, ctx, table, ids, now, audit),
    async prune(before) {
      const result = await sql`delete from ${T(table)} where status <> 'pending' and created_at < ${before}`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
    // The plugin's ChatController::has_unread_messages, each side of the user's conversations alone (an
    // index seek each, where an OR of the two would scan the conversations).
    async unreadTotal(userId) {
      const side = (mine: string, other: string) =>
        sql<{ n: number | string }>`select count(*) as n from ${T(ctx.t.conversations)} c
          join ${T(ctx.t.messages)} m on m.con_id = c.con_id and m.source_id = c.${sql.raw(other)}_id and m.is_read = 0
          where c.${sql.raw(mine)}_id = ${userId} and c.${sql.raw(mine)}_delete = 0`;
      const [row] = await rows(
        db,
        sql<{ n: number | string }>`select (${side('sender', 'recipient')}) + (${side('recipient', 'sender')}) as n`,
      );
      return Number(row?.n ?? 0);
    },
  };
}

/** The site's Pusher app, read anew: RtclPusher's conditions (on, and every field filled). */
export async function sitePusherApp(db: Db, ctx: MysqlContext): Promise<SitePusherApp | undefined> {
  const [row] = await rows(
    db,
    sql<{ option_value: string }>`select option_value from ${T(ctx.t.options)} where option_name = 'rtcl_chat_settings'`,
  );
  const chat = phpObject(row?.option_value);
  const field = (name: string) => (typeof chat[name] === 'string' || typeof chat[name] === 'number' ? String(chat[name]) : '');
  const app = {
    appId: field('pusher_app_id'),
    key: field('pusher_app_key'),
    secret: field('pusher_app_secret'),
    cluster: field('pusher_app_cluster'),
  };
  if (chat.pusher_enable !== 'yes' || Object.values(app).some((v) => v === '')) return undefined;
  return app;
}
