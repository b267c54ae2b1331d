/** The MySQL form of the shared 025-pusher: the Pusher outbox. */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from '../context.js';
import { key, TABLE_OPTIONS } from './table-options.js';

export function soukPusherMigration(t: Tables): Migration {
  return {
    async up(db) {
      await sql`create table if not exists ${T(t.soukPusherOutbox)} (
        id bigint unsigned not null auto_increment primary key,
        user_id bigint unsigned not null,
        name varchar(64) not null,
        payload longtext not null,
        created_at bigint not null,
        status varchar(16) not null,
        attempts int not null,
        next_attempt_at bigint not null,
        last_error text null,
        sent_at bigint null,
        key ${key(t.soukPusherOutbox, 'due')} (status, next_attempt_at),
        key ${key(t.soukPusherOutbox, 'by_time')} (created_at)
      ) ${TABLE_OPTIONS}`.execute(db);
    },
    async down(db) {
      await sql`drop table if exists ${T(t.soukPusherOutbox)}`.execute(db);
    },
  };
}
