/**
 * E-mail on a WordPress database: the mail outbox (`{prefix}souk_mail_outbox`) the message's
 * transaction writes (events.ts); until when users are online, in the plugin's own user meta
 * `online_status`, so that the site and Souk agree on who is online; the users' choice of mail, in the user meta
 * `souk_email_notifications`; and who the site's mail is from (`blogname`, `admin_email`).
 */
import { sql } from 'kysely';
import type { MailOutbox, MailPreferenceRepository, MailSenderIdentity, PresenceRepository } from '../../domain/mail.js';
import { MAIL_COLUMNS, pendingKey, toMailDelivery, type MailRow } from '../common/mail.js';
import { rows, statement, T, type Db, type MysqlContext } from './context.js';
import type { SiteClock } from './site.js';
import { attemptFailed, claimDue, filters, newestFirst } from './outbox.js';
import { withAudit } from './server-api.js';

/**
 * The plugin's user meta: until when the user is online. The plugin writes it on each page of the
 * site a signed-in user sees, as `current_time('timestamp') + 300`: seconds of the site's local
 * wall time read as if it were UTC (WordPress's "local timestamp"), and counts a user online while
 * it is ahead of that clock.
 */
export const ONLINE_STATUS = 'online_status';
/** Souk's: `no` when the user turned mail off. */
export const EMAIL_NOTIFICATIONS = 'souk_email_notifications';
/** Souk's: `no` when the user hid their presence (GET my/chat/presence shows them offline). */
export const SHOW_PRESENCE = 'souk_show_presence';

/**
 * The conversation's pending mail to the recipient, with the new message in it (the unique
 * pending key: a pending mail grows; its due time stays).
 */
const queue = statement(
  (ctx, _variant, userId: number, conId: number, key: string, messageId: number, at: number, dueAt: number) =>
    sql`insert into ${T(ctx.t.soukMailOutbox)}
      (user_id, con_id, pending_key, first_message_id, last_message_id, created_at, status, attempts, next_attempt_at)
      values (${userId}, ${conId}, ${key}, ${messageId}, ${messageId}, ${at}, 'pending', 0, ${dueAt})
      on duplicate key update last_message_id = greatest(last_message_id, ${messageId})`,
);

/** In the message's transaction: the mail about it for its recipient (`message.new`'s user). */
export async function queueMail(db: Db, ctx: MysqlContext, userId: number, conId: number, messageId: number, at: number, dueAt: number) {
  await queue(db, ctx, '', userId, conId, pendingKey(userId, conId), messageId, at, dueAt);
}

export function mysqlMailOutbox(db: Db, ctx: MysqlContext): MailOutbox {
  const table = ctx.t.soukMailOutbox;
  return {
    claimDue: async (now, leaseUntil, limit) =>
      (await claimDue<MailRow>(db, table, MAIL_COLUMNS, now, leaseUntil, limit)).map(toMailDelivery),
    async lastSentAt(userId, conId) {
      const [row] = await rows(
        db,
        sql<{ at: number | string | null }>`select max(sent_at) as at from ${T(table)}
          where user_id = ${userId} and con_id = ${conId} and status = 'sent'`,
      );
      return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
    },
    async postpone(id, until) {
      await sql`update ${T(table)} set next_attempt_at = ${until} where id = ${id}`.execute(db);
    },
    async finish(id, status, note, upTo, now, nextDueAt) {
      await db.transaction().execute(async (trx) => {
        // The message transaction's upsert waits for this lock, then grows the new pending row.
        const [row] = await rows(
          trx,
          sql<{
            user_id: number | string;
            con_id: number | string;
            last_message_id: number | string;
          }>`select user_id, con_id, last_message_id
            from ${T(table)} where id = ${id} for update`,
        );
        if (!row) return;
        const queued = Number(row.last_message_id);
        const sentAt = status === 'sent' ? now : null;
        await sql`update ${T(table)} set status = ${status}, last_error = ${note}, pending_key = null,
          last_message_id = ${Math.min(queued, upTo)}, sent_at = coalesce(${sentAt}, sent_at) where id = ${id}`.execute(trx);
        if (queued <= upTo) return;
        const [userId, conId] = [Number(row.user_id), Number(row.con_id)];
        await sql`insert into ${T(table)}
          (user_id, con_id, pending_key, first_message_id, last_message_id, created_at, status, attempts, next_attempt_at)
          values (${userId}, ${conId}, ${pendingKey(userId, conId)}, ${upTo + 1}, ${queued}, ${now}, 'pending', 0, ${nextDueAt})`.execute(
          trx,
        );
      });
    },
    async attemptFailed(id, attempts, retryAt, error) {
      await attemptFailed(db, table, id, attempts, retryAt, error);
      // A mail kept as failed leaves the conversation free for the next one (souk mail retry brings it back).
      if (retryAt === null) await sql`update ${T(table)} set pending_key = null where id = ${id}`.execute(db);
    },
    list: async ({ status, beforeId, limit }) =>
      (await newestFirst<MailRow>(db, table, MAIL_COLUMNS, filters(status, beforeId), limit)).map(toMailDelivery),
    retry: (ids, now, audit) =>
      withAudit(db, ctx, audit, async (db) => {
        const failed = await rows(
          db,
          sql<{ id: number | string; user_id: number | string; con_id: number | string }>`select id, user_id, con_id from ${T(table)}
          where status = 'failed' ${ids.length > 0 ? sql`and id in (${sql.join(ids)})` : sql``}`,
        );
        let n = 0;
        for (const row of failed) {
          // A conversation with a mail pending already: that one carries the messages (they are still unread).
          const key = pendingKey(Number(row.user_id), Number(row.con_id));
          const result = await sql`update ${T(table)} set status = 'pending', attempts = 0, next_attempt_at = ${now}, pending_key = ${key}
          where id = ${Number(row.id)} and not exists (select 1 from (select id from ${T(table)} where pending_key = ${key}) as p)`.execute(
            db,
          );
          n += Number(result.numAffectedRows ?? 0);
        }
        return n;
      }),
    async prune(before) {
      const result = await sql`delete from ${T(table)} where status <> 'pending' and created_at < ${before}`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}

/** One user meta value, as WordPress's update_user_meta keeps it: the row updated, else added. */
async function setUserMeta(db: Db, ctx: MysqlContext, userId: number, key: string, value: string) {
  const meta = T(ctx.t.usermeta);
  const [row] = await rows(
    db,
    sql<{ umeta_id: number | string }>`select umeta_id from ${meta} where user_id = ${userId} and meta_key = ${key} limit 1`,
  );
  if (row) await sql`update ${meta} set meta_value = ${value} where umeta_id = ${row.umeta_id}`.execute(db);
  else await sql`insert into ${meta} (user_id, meta_key, meta_value) values (${userId}, ${key}, ${value})`.execute(db);
}

async function userMeta(db: Db, ctx: MysqlContext, userId: number, key: string): Promise<string | undefined> {
  const [row] = await rows(
    db,
    sql<{ meta_value: string | null }>`select meta_value from ${T(ctx.t.usermeta)} where user_id = ${userId} and meta_key = ${key}
      order by umeta_id limit 1`,
  );
  return row?.meta_value ?? undefined;
}

/** Epoch ms as WordPress's local timestamp (current_time('timestamp')), and back. */
function localSeconds(clock: SiteClock, ms: number): number {
  return Date.parse(`${clock.local(ms).replace(' ', 'T')}Z`) / 1000;
}
function fromLocalSeconds(clock: SiteClock, seconds: number): number {
  return clock.epoch(new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' '));
}

export function mysqlPresence(db: Db, ctx: MysqlContext): PresenceRepository {
  return {
    async seen(userId, until) {
      const { clock } = await ctx.site();
      await setUserMeta(db, ctx, userId, ONLINE_STATUS, String(localSeconds(clock, until)));
    },
    async seenAll(entries) {
      // One user meta row each, as the plugin keeps it.
      const { clock } = await ctx.site();
      for (const { userId, until } of entries) await setUserMeta(db, ctx, userId, ONLINE_STATUS, String(localSeconds(clock, until)));
    },
    async onlineUntil(userId) {
      const value = (await userMeta(db, ctx, userId, ONLINE_STATUS))?.trim();
      if (value === undefined || !/^\d{1,12}$/.test(value)) return undefined;
      return fromLocalSeconds((await ctx.site()).clock, Number(value));
    },
    async chatPartners(userId, others) {
      if (others.length === 0) return [];
      const ids = sql.join(others);
      const found = await rows(
        db,
        sql<{ partner: number | string }>`select distinct case when sender_id = ${userId} then recipient_id else sender_id end as partner
          from ${T(ctx.t.conversations)}
          where (sender_id = ${userId} and recipient_id in (${ids})) or (recipient_id = ${userId} and sender_id in (${ids}))`,
      );
      return found.map((r) => Number(r.partner));
    },
  };
}

export function mysqlMailPreferences(db: Db, ctx: MysqlContext): MailPreferenceRepository {
  return {
    emailOn: async (userId) => (await userMeta(db, ctx, userId, EMAIL_NOTIFICATIONS)) !== 'no',
    setEmail: (userId, on) => setUserMeta(db, ctx, userId, EMAIL_NOTIFICATIONS, on ? 'yes' : 'no'),
    async hidingPresence(userIds) {
      if (userIds.length === 0) return new Set();
      const found = await rows(
        db,
        sql<{ user_id: number | string }>`select user_id from ${T(ctx.t.usermeta)}
          where meta_key = ${SHOW_PRESENCE} and meta_value = 'no' and user_id in (${sql.join(userIds)})`,
      );
      return new Set(found.map((r) => Number(r.user_id)));
    },
    setShowPresence: (userId, shown) => setUserMeta(db, ctx, userId, SHOW_PRESENCE, shown ? 'yes' : 'no'),
  };
}

/** The site's name and address, as WordPress's own mail says who it is from. */
export async function mysqlMailSender(db: Db, ctx: MysqlContext): Promise<MailSenderIdentity | undefined> {
  const options = await rows(
    db,
    sql<{ option_name: string; option_value: string }>`select option_name, option_value from ${T(ctx.t.options)}
      where option_name in ('blogname', 'admin_email')`,
  );
  const value = (name: string) => options.find((o) => o.option_name === name)?.option_value.trim() ?? '';
  const address = value('admin_email');
  return address === '' ? undefined : { name: value('blogname'), address };
}
