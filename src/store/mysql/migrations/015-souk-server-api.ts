/** The MySQL form of the shared 026-server-api: the server keys and the audit log, Souk's own tables. */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from '../context.js';
import { key, TABLE_OPTIONS } from './table-options.js';

export function soukServerApiMigration(t: Tables): Migration {
  return {
    async up(db) {
      await sql`create table if not exists ${T(t.soukServerKeys)} (
        name varchar(100) not null primary key,
        digest char(64) not null,
        created_at bigint not null,
        last_used_at bigint null,
        unique key ${key(t.soukServerKeys, 'digest')} (digest)
      ) ${TABLE_OPTIONS}`.execute(db);
      await sql`create table if not exists ${T(t.soukAuditLog)} (
        id bigint unsigned not null auto_increment primary key,
        at bigint not null,
        actor_kind varchar(16) not null,
        actor varchar(255) not null,
        action varchar(64) not null,
        target_kind varchar(32) not null,
        target_id bigint unsigned null,
        reason text null,
        details text null,
        key ${key(t.soukAuditLog, 'by_time')} (at),
        key ${key(t.soukAuditLog, 'by_actor')} (actor, id)
      ) ${TABLE_OPTIONS}`.execute(db);
    },
    async down(db) {
      await sql`drop table if exists ${T(t.soukAuditLog)}`.execute(db);
      await sql`drop table if exists ${T(t.soukServerKeys)}`.execute(db);
    },
  };
}
