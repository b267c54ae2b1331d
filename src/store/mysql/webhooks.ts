/**
 * The webhook outbox on a WordPress database (`{prefix}souk_webhook_outbox`): one row per event
 * and receiver, written in the change's transaction (events.ts), sent by the shared delivery loop
 * (src/events/webhooks.ts) and seen and sent again by `souk webhooks`.
 */
import { sql } from 'kysely';
import type { WebhookOutbox } from '../../domain/ports.js';
import { toWebhookDelivery, WEBHOOK_COLUMNS, type WebhookRow } from '../common/events.js';
import { statement, T, type Db, type MysqlContext } from './context.js';
import { attemptFailed, claimDue, newestFirst } from './outbox.js';
import { withAudit } from './server-api.js';

const insert = statement(
  (ctx, _variant, messageId: string, url: string, type: string, userId: number, payload: string, at: number) =>
    sql`insert into ${T(ctx.t.soukWebhookOutbox)}
      (message_id, url, type, user_id, payload, created_at, window_from, status, attempts, next_attempt_at)
      values (${messageId}, ${url}, ${type}, ${userId}, ${payload}, ${at}, ${at}, 'pending', 0, ${at})`,
);

/** One receiver's row for an event, in the caller's transaction. */
export async function queueWebhook(
  db: Db,
  ctx: MysqlContext,
  messageId: string,
  url: string,
  type: string,
  userId: number,
  payload: string,
  at: number,
): Promise<void> {
  await insert(db, ctx, '', messageId, url, type, userId, payload, at);
}

export function mysqlWebhookOutbox(db: Db, ctx: MysqlContext): WebhookOutbox {
  const table = ctx.t.soukWebhookOutbox;
  // Sent again from now: pending, a fresh count and retry window.
  const again = (now: number) => sql`status = 'pending', attempts = 0, next_attempt_at = ${now}, window_from = ${now}`;
  return {
    claimDue: async (now, leaseUntil, limit) =>
      (await claimDue<WebhookRow>(db, table, WEBHOOK_COLUMNS, now, leaseUntil, limit)).map(toWebhookDelivery),
    async delivered(id, now) {
      await sql`update ${T(table)} set status = 'delivered', delivered_at = ${now}, last_error = null where id = ${id}`.execute(db);
    },
    attemptFailed: (id, attempts, retryAt, error) => attemptFailed(db, table, id, attempts, retryAt, error),
    async list({ status, since, beforeId, limit }) {
      const where = [];
      if (status) where.push(sql`status = ${status}`);
      if (since !== undefined) where.push(sql`created_at >= ${since}`);
      if (beforeId !== undefined) where.push(sql`id < ${beforeId}`);
      return (await newestFirst<WebhookRow>(db, table, WEBHOOK_COLUMNS, where, limit)).map(toWebhookDelivery);
    },
    retry: (ids, now, audit) =>
      withAudit(db, ctx, audit, async (db) => {
        const only = ids.length > 0 ? sql`and id in (${sql.join(ids)})` : sql``;
        const result = await sql`update ${T(table)} set ${again(now)} where status = 'failed' ${only}`.execute(db);
        return Number(result.numAffectedRows ?? 0);
      }),
    async replay(since, now) {
      const result = await sql`update ${T(table)} set ${again(now)} where created_at >= ${since}`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
    async prune(before) {
      const result = await sql`delete from ${T(table)} where created_at < ${before} and status = 'delivered'`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
