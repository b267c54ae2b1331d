/**
 * The Pusher outbox on a WordPress database (`{prefix}souk_pusher_outbox`), written in the
 * change's transaction (events.ts) and read by the shared Pusher sender (src/events/pusher.ts);
 * and the site's own Pusher app, `rtcl_chat_settings` as the plugin reads it (RtclPusher).
 */
import { sql } from 'kysely';
import type { PusherEventName, PusherOutbox, SitePusherApp } from '../../domain/pusher.js';
import { PUSHER_COLUMNS, toPusherDelivery, type PusherRow } from '../common/pusher.js';
import { rows, statement, T, type Db, type MysqlContext } from './context.js';
import { attemptFailed, claimDue, newestFirst } from './outbox.js';
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
    list: async ({ status, limit }) =>
      (await newestFirst<PusherRow>(db, table, PUSHER_COLUMNS, status ? [sql`status = ${status}`] : [], limit)).map(toPusherDelivery),
    async prune(before) {
      const result = await sql`delete from ${T(table)} where status <> 'pending' and created_at < ${before}`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
    // The plugin's ChatController::has_unread_messages.
    async unreadTotal(userId) {
      const [row] = await rows(
        db,
        sql<{ n: number | string }>`select count(m.message_id) as n from ${T(ctx.t.conversations)} c
          join ${T(ctx.t.messages)} m on m.con_id = c.con_id
          where ((c.sender_id = ${userId} and c.sender_delete = 0) or (c.recipient_id = ${userId} and c.recipient_delete = 0))
            and m.is_read = 0 and m.source_id <> ${userId}`,
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
