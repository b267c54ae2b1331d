/**
 * As the common 015-revocations-by-subject does (auth/revoked-tokens.ts): the old rows name only
 * tokens without Souk's mark, refused anyway.
 */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from '../context.js';
import { key, TABLE_OPTIONS } from './table-options.js';

export function soukRevocationsBySubjectMigration(t: Tables): Migration {
  return {
    async up(db) {
      await sql`drop table if exists ${T(t.soukRevokedTokens)}`.execute(db);
      await sql`create table ${T(t.soukRevokedTokens)} (
        subject varchar(191) not null,
        digest varchar(64) not null,
        issued_at bigint not null,
        expires_at bigint not null,
        revoked_at bigint not null,
        primary key (subject, digest),
        key ${key(t.soukRevokedTokens, 'revoked_at')} (revoked_at),
        key ${key(t.soukRevokedTokens, 'expires_at')} (expires_at)
      ) ${TABLE_OPTIONS}`.execute(db);
    },
    async down(db) {
      await sql`drop table if exists ${T(t.soukRevokedTokens)}`.execute(db);
    },
  };
}
