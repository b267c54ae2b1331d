/** The console's own reads (domain/staff/reads.ts) on Souk's schema: SQLite and PostgreSQL alike. */
import { sql, type Kysely } from 'kysely';
import type { ConsoleReads } from '../../domain/staff/reads.js';
import type { Database } from './schema.js';

export function consoleReads(db: Kysely<Database>): ConsoleReads {
  return {
    async activitySince(since, window) {
      // The latest `window` rows by primary key, then their times: a bounded read, no index on time.
      const { rows } = await sql<{ messages: number | string; senders: number | string; conversations: number | string }>`
        select
          (select count(*) from (select created_at from messages order by id desc limit ${window}) m where m.created_at >= ${since}) as messages,
          (select count(distinct source_id) from (select source_id, created_at from messages order by id desc limit ${window}) m
            where m.created_at >= ${since}) as senders,
          (select count(*) from (select created_at from conversations order by id desc limit ${window}) c where c.created_at >= ${since}) as conversations
      `.execute(db);
      const row = rows[0]!;
      return { messages: Number(row.messages), senders: Number(row.senders), conversations: Number(row.conversations) };
    },
    async conversationIdsAbout(listingId, offset, limit) {
      const rows = await db
        .selectFrom('conversations')
        .select('id')
        .where('listing_id', '=', listingId)
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map((r) => Number(r.id));
    },
    async userIdsNamed(name, limit) {
      // lower() on both sides: the index is on lower(name), and SQLite's lower() is not JavaScript's.
      const rows = await db
        .selectFrom('users')
        .select('id')
        .where(sql`lower(name)`, '=', sql`lower(${name})`)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((r) => Number(r.id));
    },
  };
}
