/**
 * The moderation barrier (mysql/moderation.ts): one row that every send reads with a shared lock
 * and a disable or an erasure holds exclusively, so that a message racing them commits before or
 * not at all. InnoDB has no lock on a user's row that sends could share without waiting for that
 * user's own writes (their writer lock is exclusive), hence one row of Souk's own.
 */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from '../context.js';
import { TABLE_OPTIONS } from './table-options.js';

export function soukModerationBarrierMigration(t: Tables): Migration {
  return {
    async up(db) {
      await sql`create table if not exists ${T(t.soukModerationBarrier)} (id tinyint unsigned not null primary key) ${TABLE_OPTIONS}`.execute(
        db,
      );
      await sql`insert ignore into ${T(t.soukModerationBarrier)} (id) values (1)`.execute(db);
    },
    async down(db) {
      await sql`drop table if exists ${T(t.soukModerationBarrier)}`.execute(db);
    },
  };
}
