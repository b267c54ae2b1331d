/**
 * The MySQL form of the shared 021-mail: the mail outbox. When users were last seen and their
 * choice of mail are the site's user meta (`online_status`, as the plugin keeps it, and
 * `souk_email_notifications`), no table of Souk's.
 */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from '../context.js';
import { key, TABLE_OPTIONS } from './table-options.js';

export function soukMailMigration(t: Tables): Migration {
  return {
    async up(db) {
      await sql`create table if not exists ${T(t.soukMailOutbox)} (
        id bigint unsigned not null auto_increment primary key,
        user_id bigint unsigned not null,
        con_id bigint unsigned not null,
        pending_key varchar(64) null,
        first_message_id bigint unsigned not null,
        last_message_id bigint unsigned not null,
        created_at bigint not null,
        status varchar(16) not null,
        attempts int not null,
        next_attempt_at bigint not null,
        last_error text null,
        sent_at bigint null,
        unique key ${key(t.soukMailOutbox, 'pending')} (pending_key),
        key ${key(t.soukMailOutbox, 'due')} (status, next_attempt_at),
        key ${key(t.soukMailOutbox, 'by_conversation')} (user_id, con_id, sent_at),
        key ${key(t.soukMailOutbox, 'by_time')} (created_at)
      ) ${TABLE_OPTIONS}`.execute(db);
    },
    async down(db) {
      await sql`drop table if exists ${T(t.soukMailOutbox)}`.execute(db);
    },
  };
}
