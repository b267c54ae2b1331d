/**
 * Moderation on a WordPress site's tables (domain/moderation.ts). The site's profile is
 * WordPress's: Souk marks a user disabled or erased in user meta of its own (catalog.ts,
 * SOUK_DISABLED_META, SOUK_ERASED_META) and never changes wp_users. A removed message is emptied
 * in the plugin's table and typed `system`, as the plugin's admin leaves it.
 *
 * Locks: a disable or an erasure holds the moderation barrier row (migrations/009) exclusively,
 * every send reads it shared before it reads its participants' marks: sends do not wait for each
 * other, and one racing a disable or an erasure commits before it or waits and sees the mark.
 */
import { sql } from 'kysely';
import { CARRYING_EVENTS, payloadCarries } from '../../domain/events.js';
import type { ModerationRepository } from '../../domain/moderation.js';
import { SOUK_DISABLED_META, SOUK_ERASED_META } from './catalog.js';
import { rows, T, together, type Db, type MysqlContext } from './context.js';
import { FAVOURITES_META_KEY, toMessage, type MessageRow } from './repositories.js';
import { auditInsert } from './server-api.js';

/** The plugin's block lists (user meta, PHP-serialised): the erasure removes them with the rest. */
const BLOCK_LIST_META = ['_rtcl_blocked_user_ids', '_rtcl_blocked_listing_ids'];

/** The name of the retention's deletions' lock (GET_LOCK): one instance deletes at a time. */
const RETENTION_LOCK = 'souk_chat_retention';

const affected = (result: { numAffectedRows?: bigint }) => Number(result.numAffectedRows ?? 0);

/** Outbox rows read at a time when an erasure looks for those that carry the user. */
const CARRIED_PAGE = 500;

/** `enter`: begins the unit of work's transaction (WriteScope.enter) before a statement that needs it. */
export function mysqlModeration(db: Db, ctx: MysqlContext, enter: () => Promise<void>): ModerationRepository {
  const { t } = ctx;
  const run = async (query: ReturnType<typeof sql>) => {
    await enter();
    return db.executeQuery(query.compile(db));
  };
  const marks = (ids: number[]) =>
    sql<{ user_id: number | string; meta_key: string }>`select user_id, meta_key from ${T(t.usermeta)}
      where user_id in (${sql.join(ids)}) and meta_key in (${SOUK_DISABLED_META}, ${SOUK_ERASED_META})`;
  const mark = async (userId: number, key: string, at: number) => {
    // usermeta has no unique key: one row per mark, the first one kept.
    await run(sql`insert into ${T(t.usermeta)} (user_id, meta_key, meta_value)
      select ${userId}, ${key}, ${String(at)} from dual
      where not exists (select 1 from ${T(t.usermeta)} where user_id = ${userId} and meta_key = ${key})`);
  };

  /**
   * Deletes the other users' webhook and push rows whose payload carries the erased user's words or
   * profile (domain/events.ts): pending ones would send them, delivered ones could be replayed.
   */
  async function forgetCarried(userId: number): Promise<number> {
    let deleted = 0;
    for (const table of [t.soukWebhookOutbox, t.soukPushOutbox]) {
      const carrying = table === t.soukWebhookOutbox ? sql`and type in (${sql.join(CARRYING_EVENTS)})` : sql``;
      for (let after = 0; ;) {
        const page = await rows(
          db,
          sql<{ id: number; payload: string }>`select id, payload from ${T(table)}
            where user_id <> ${userId} and id > ${after} ${carrying} order by id limit ${CARRIED_PAGE}`,
        );
        const ids = page.filter((r) => payloadCarries(r.payload, userId)).map((r) => Number(r.id));
        if (ids.length > 0) deleted += affected(await run(sql`delete from ${T(table)} where id in (${sql.join(ids)})`));
        if (page.length < CARRIED_PAGE) break;
        after = Number(page.at(-1)!.id);
      }
    }
    return deleted;
  }

  return {
    async lockUser(userId) {
      await enter();
      const [barrier, user, found] = await together(db, ctx, [
        sql`select id from ${T(t.soukModerationBarrier)} where id = 1 for update`.compile(db),
        sql`select ID, user_status from ${T(t.users)} where ID = ${userId} for update`.compile(db),
        marks([userId]).compile(db),
      ]);
      if (barrier!.rows.length === 0) throw new Error('the moderation barrier row is missing: run souk migrate');
      const row = user!.rows[0] as { user_status: number | string } | undefined;
      if (!row) return undefined;
      const keys = new Set((found!.rows as { meta_key: string }[]).map((r) => r.meta_key));
      return {
        disabled: Number(row.user_status) !== 0 || keys.has(SOUK_DISABLED_META) || keys.has(SOUK_ERASED_META),
        erased: keys.has(SOUK_ERASED_META),
      };
    },
    async closedAmong(userIds) {
      await enter();
      const [, closed] = await together(db, ctx, [
        sql`select id from ${T(t.soukModerationBarrier)} where id = 1 lock in share mode`.compile(db),
        sql<{ ID: number | string }>`select u.ID from ${T(t.users)} u where u.ID in (${sql.join(userIds)}) and (u.user_status <> 0
          or exists (select 1 from ${T(t.usermeta)} m where m.user_id = u.ID and m.meta_key in (${SOUK_DISABLED_META}, ${SOUK_ERASED_META})))`.compile(
          db,
        ),
      ]);
      return (closed!.rows as { ID: number | string }[]).map((r) => Number(r.ID));
    },
    async setDisabled(userId, disabled, at) {
      if (disabled) await mark(userId, SOUK_DISABLED_META, at);
      else await run(sql`delete from ${T(t.usermeta)} where user_id = ${userId} and meta_key = ${SOUK_DISABLED_META}`);
    },
    async recordAudit(entry) {
      await run(auditInsert(ctx, entry));
    },
    async removeMessage(messageId) {
      const { messageDetails } = await ctx.chat();
      await run(
        messageDetails
          ? sql`update ${T(t.messages)} set message = '', attachments = null, type = 'system' where message_id = ${messageId}`
          : sql`update ${T(t.messages)} set message = '' where message_id = ${messageId}`,
      );
      await run(sql`delete from ${T(t.soukMessageFiles)} where message_id = ${messageId}`);
      await run(sql`delete from ${T(t.soukMessageEdits)} where message_id = ${messageId}`);
      const columns = messageDetails
        ? sql`message_id, con_id, source_id, type, message, attachments, meta, is_read, created_at`
        : sql`message_id, con_id, source_id, null as type, message, null as attachments, null as meta, is_read, created_at`;
      const [row] = await rows(db, sql<MessageRow>`select ${columns} from ${T(t.messages)} where message_id = ${messageId}`);
      return row && toMessage(row, (await ctx.site()).clock);
    },
    async erase(userId, at) {
      const { messageDetails } = await ctx.chat();
      const messages = affected(
        await run(
          messageDetails
            ? sql`update ${T(t.messages)} set message = '', attachments = null, type = 'system'
                where source_id = ${userId} and (coalesce(message, '') <> '' or attachments is not null or type <> 'system')`
            : sql`update ${T(t.messages)} set message = '' where source_id = ${userId} and coalesce(message, '') <> ''`,
        ),
      );
      await run(sql`delete from ${T(t.soukMessageTempIds)} where source_id = ${userId}`);
      await run(sql`delete from ${T(t.soukMessageFiles)} where source_id = ${userId}`);
      await run(sql`delete from ${T(t.soukMessageEdits)} where source_id = ${userId}`);
      const favourites = affected(
        await run(sql`delete from ${T(t.usermeta)} where user_id = ${userId} and meta_key = ${FAVOURITES_META_KEY}`),
      );
      await run(sql`delete from ${T(t.usermeta)} where user_id = ${userId} and meta_key in (${sql.join(BLOCK_LIST_META)})`);
      const devices = affected(await run(sql`delete from ${T(t.soukPushDevices)} where user_id = ${userId}`));
      let events = affected(await run(sql`delete from ${T(t.soukEvents)} where user_id = ${userId}`));
      events += affected(await run(sql`delete from ${T(t.soukWebhookOutbox)} where user_id = ${userId}`));
      events += affected(await run(sql`delete from ${T(t.soukPushOutbox)} where user_id = ${userId}`));
      events += await forgetCarried(userId);
      await run(sql`delete from ${T(t.soukEventTickets)} where user_id = ${userId}`);
      await mark(userId, SOUK_ERASED_META, at);
      // The wp_users row and its profile are WordPress's: its own eraser owns them.
      return { messages, favourites, devices, events, profileErased: false };
    },
    async deleteInactiveConversations(before, limit) {
      await enter();
      // A lock of the connection's session, so released in every case before it goes back to the pool.
      const [got] = await rows(db, sql<{ got: number | null }>`select get_lock(${RETENTION_LOCK}, 0) as got`);
      if (Number(got?.got) !== 1) return null;
      try {
        const cutoff = (await ctx.site()).clock.local(before);
        // As the plugin's daily clean-up: by the last message's time; one without messages by its start.
        const found = await rows(
          db,
          sql<{ con_id: number | string }>`select c.con_id from ${T(t.conversations)} c
            left join ${T(t.messages)} m on m.message_id = c.last_message_id
            where coalesce(m.created_at, c.created_at) < ${cutoff} limit ${limit}`,
        );
        const ids = found.map((r) => Number(r.con_id));
        if (ids.length === 0) return 0;
        const list = sql.join(ids);
        // The conversations first, their time checked again on the rows deleted: the delete waits
        // for a writer holding one (repositories.ts, kept) and reads it as that writer left it, so
        // one that got a message meanwhile stays. Then the messages of those deleted.
        const deleted = affected(
          await run(sql`delete c from ${T(t.conversations)} c left join ${T(t.messages)} m on m.message_id = c.last_message_id
            where c.con_id in (${list}) and coalesce(m.created_at, c.created_at) < ${cutoff}`),
        );
        const gone = sql`con_id in (${list}) and con_id not in (select con_id from ${T(t.conversations)} where con_id in (${list}))`;
        await run(sql`delete from ${T(t.messages)} where ${gone}`);
        await run(sql`delete from ${T(t.soukMessageTempIds)} where ${gone}`);
        await run(sql`delete from ${T(t.soukMessageFiles)} where ${gone}`);
        await run(sql`delete from ${T(t.soukMessageEdits)} where ${gone}`);
        return deleted;
      } finally {
        await rows(db, sql`select release_lock(${RETENTION_LOCK})`);
      }
    },
  };
}
