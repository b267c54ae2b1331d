/** The MySQL form of the shared 013-push: push devices and the push outbox. */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from '../context.js';
import { key, TABLE_OPTIONS } from './table-options.js';

export function soukPushMigration(t: Tables): Migration {
  return {
    async up(db) {
      // Expo's tokens are at most some 220 characters (domain/push.ts).
      await sql`create table if not exists ${T(t.soukPushDevices)} (
        token varchar(255) not null primary key,
        user_id bigint unsigned not null,
        events text not null,
        registered_at bigint not null,
        key ${key(t.soukPushDevices, 'by_user')} (user_id, registered_at)
      ) ${TABLE_OPTIONS}`.execute(db);
      await sql`create table if not exists ${T(t.soukPushOutbox)} (
        id bigint unsigned not null auto_increment primary key,
        user_id bigint unsigned not null,
        message_id bigint unsigned not null,
        payload longtext not null,
        created_at bigint not null,
        status varchar(16) not null,
        attempts int not null,
        next_attempt_at bigint not null,
        last_error text null,
        unique key ${key(t.soukPushOutbox, 'once')} (user_id, message_id),
        key ${key(t.soukPushOutbox, 'due')} (status, next_attempt_at),
        key ${key(t.soukPushOutbox, 'by_time')} (created_at)
      ) ${TABLE_OPTIONS}`.execute(db);
    },
    async down(db) {
      for (const table of [t.soukPushOutbox, t.soukPushDevices]) await sql`drop table if exists ${T(table)}`.execute(db);
    },
  };
}
