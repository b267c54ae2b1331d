/**
 * The MySQL form of the shared 011-events: the event log, each user's sequence and the event
 * stream's tickets, with the same columns and meanings; times as UTC epoch ms (bigint), never the
 * site's local time. One difference: the event log has a global auto-increment `id` beside the
 * user's `seq`, which other instances poll for (event-polling.ts).
 */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from '../context.js';
import { key, TABLE_OPTIONS } from './table-options.js';

export function soukEventsMigration(t: Tables): Migration {
  return {
    async up(db) {
      // The user's row is updated by each event's transaction, and held to its commit: one user's
      // events commit in `seq` order on every instance.
      await sql`create table if not exists ${T(t.soukEventSequences)} (
        user_id bigint unsigned not null primary key,
        seq bigint unsigned not null
      ) ${TABLE_OPTIONS}`.execute(db);
      await sql`create table if not exists ${T(t.soukEvents)} (
        id bigint unsigned not null auto_increment primary key,
        user_id bigint unsigned not null,
        seq bigint unsigned not null,
        type varchar(64) not null,
        payload longtext not null,
        created_at bigint not null,
        unique key ${key(t.soukEvents, 'user_seq')} (user_id, seq),
        key ${key(t.soukEvents, 'by_time')} (created_at)
      ) ${TABLE_OPTIONS}`.execute(db);
      await sql`create table if not exists ${T(t.soukEventTickets)} (
        digest char(64) not null primary key,
        user_id bigint unsigned not null,
        token_digest char(64) not null,
        token_expires_at bigint not null,
        expires_at bigint not null,
        key ${key(t.soukEventTickets, 'expires_at')} (expires_at)
      ) ${TABLE_OPTIONS}`.execute(db);
    },
    async down(db) {
      for (const table of [t.soukEventTickets, t.soukEvents, t.soukEventSequences]) await sql`drop table if exists ${T(table)}`.execute(db);
    },
  };
}
