/**
 * Souk's own tables beside the site's: the settings Souk generates, revoked tokens, and the
 * client `temp_id` of messages (for safe retries; the plugin's message table has no column for
 * it). Idempotent: `create table if not exists`.
 */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from '../context.js';
import { key, TABLE_OPTIONS } from './table-options.js';

export function soukTablesMigration(t: Tables): Migration {
  return {
    async up(db) {
      await sql`create table if not exists ${T(t.soukSettings)} (
        \`key\` varchar(191) not null primary key,
        \`value\` longtext not null,
        updated_at bigint not null
      ) ${TABLE_OPTIONS}`.execute(db);
      await sql`create table if not exists ${T(t.soukRevokedTokens)} (
        digest char(64) not null primary key,
        expires_at bigint not null,
        revoked_at bigint not null,
        key ${key(t.soukRevokedTokens, 'revoked_at')} (revoked_at),
        key ${key(t.soukRevokedTokens, 'expires_at')} (expires_at)
      ) ${TABLE_OPTIONS}`.execute(db);
      await sql`create table if not exists ${T(t.soukMessageTempIds)} (
        message_id bigint unsigned not null primary key,
        con_id bigint unsigned not null,
        source_id bigint unsigned not null,
        temp_id varchar(64) not null,
        key ${key(t.soukMessageTempIds, 'lookup')} (con_id, source_id, temp_id)
      ) ${TABLE_OPTIONS}`.execute(db);
    },
    async down(db) {
      for (const table of [t.soukMessageTempIds, t.soukRevokedTokens, t.soukSettings]) {
        await sql`drop table if exists ${T(table)}`.execute(db);
      }
    },
  };
}
