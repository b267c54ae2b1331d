/** The MySQL form of the shared 012-webhooks: the webhook outbox. */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from '../context.js';
import { key, TABLE_OPTIONS } from './table-options.js';

export function soukWebhooksMigration(t: Tables): Migration {
  return {
    async up(db) {
      await sql`create table if not exists ${T(t.soukWebhookOutbox)} (
        id bigint unsigned not null auto_increment primary key,
        message_id varchar(64) not null,
        url text not null,
        type varchar(64) not null,
        user_id bigint unsigned not null,
        payload longtext not null,
        created_at bigint not null,
        window_from bigint not null,
        status varchar(16) not null,
        attempts int not null,
        next_attempt_at bigint not null,
        last_error text null,
        delivered_at bigint null,
        key ${key(t.soukWebhookOutbox, 'due')} (status, next_attempt_at),
        key ${key(t.soukWebhookOutbox, 'by_time')} (created_at)
      ) ${TABLE_OPTIONS}`.execute(db);
    },
    async down(db) {
      await sql`drop table if exists ${T(t.soukWebhookOutbox)}`.execute(db);
    },
  };
}
