/**
 * The console's own reads (domain/staff/reads.ts) on a WordPress site: the plugin's conversations
 * and messages, WordPress's users. Their times are the site's local wall time (SiteClock).
 */
import { sql } from 'kysely';
import type { ConsoleReads } from '../../domain/staff/reads.js';
import { rows, T, type Db, type MysqlContext } from './context.js';

export function mysqlConsoleReads(db: Db, ctx: MysqlContext): ConsoleReads {
  const { t } = ctx;
  return {
    async activitySince(since, window) {
      const from = (await ctx.site()).clock.local(since);
      // The latest `window` rows by primary key, then their times: the plugin's tables have no index on time.
      const [row] = await rows(
        db,
        sql<{ messages: number | string; senders: number | string; conversations: number | string }>`select
          (select count(*) from (select created_at from ${T(t.messages)} order by message_id desc limit ${window}) m
            where m.created_at >= ${from}) as messages,
          (select count(distinct source_id) from (select source_id, created_at from ${T(t.messages)} order by message_id desc limit ${window}) m
            where m.created_at >= ${from}) as senders,
          (select count(*) from (select created_at from ${T(t.conversations)} order by con_id desc limit ${window}) c
            where c.created_at >= ${from}) as conversations`,
      );
      return { messages: Number(row!.messages), senders: Number(row!.senders), conversations: Number(row!.conversations) };
    },
    // The plugin's table has no index on the listing: this reads it, newest first, until the page is
    // full, unless the operator added souk_listing (docs/running-beside-wordpress.md).
    conversationIdsAbout: async (listingId, offset, limit) =>
      (
        await rows(
          db,
          sql<{ con_id: number | string }>`select con_id from ${T(t.conversations)} where listing_id = ${listingId}
            order by con_id desc limit ${limit} offset ${offset}`,
        )
      ).map((r) => Number(r.con_id)),
    // display_name's collation ignores case; WordPress indexes it not (souk_display_name, as above).
    userIdsNamed: async (name, limit) =>
      (
        await rows(db, sql<{ ID: number | string }>`select ID from ${T(t.users)} where display_name = ${name} order by ID limit ${limit}`)
      ).map((r) => Number(r.ID)),
  };
}
