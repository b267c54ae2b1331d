/**
 * Souk's own tables for "Messages as they happen" on a WordPress database, the MySQL form of the
 * shared migrations 011 (event log), 012 (webhook outbox) and 013 (push): the same columns and
 * meanings, times as UTC epoch ms (bigint), never the site's local time. Idempotent, as the
 * first migration: `create table if not exists`.
 *
 * One difference: the event log has a global auto-increment `id` beside the user's `seq`, which
 * other instances poll for (event-polling.ts).
 */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from './context.js';

const TABLE_OPTIONS = sql.raw('engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin');

/** An index's name, after its table's as in the first migration. */
const key = (table: string, name: string) => sql.id(`${table}_${name}`);

export function eventMigrations(t: Tables): Record<string, Migration> {
  const events: Migration = {
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
  const webhooks: Migration = {
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
  const push: Migration = {
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
  return { '002-souk-events': events, '003-souk-webhooks': webhooks, '004-souk-push': push };
}
