/**
 * Souk's own tables on a WordPress database, beside the site's and never instead of them: the
 * settings Souk generates, revoked tokens, the client `temp_id` of messages (for safe retries;
 * the plugin's message table has no column for it), and the event log and outboxes
 * (event-migrations.ts). Named `{prefix}souk_...`: uninstalling Souk is dropping them. Instances
 * that start together take turns under a named lock (GET_LOCK).
 */
import { Migrator, sql, type Migration } from 'kysely';
import type { Migrations } from '../common/migrate.js';
import { T, type Db, type Tables } from './context.js';
import { eventMigrations } from './event-migrations.js';

const TABLE_OPTIONS = sql.raw('engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin');

function mysqlMigrations(t: Tables): Migrations {
  const initial: Migration = {
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
        key ${sql.id(`${t.soukRevokedTokens}_revoked_at`)} (revoked_at),
        key ${sql.id(`${t.soukRevokedTokens}_expires_at`)} (expires_at)
      ) ${TABLE_OPTIONS}`.execute(db);
      await sql`create table if not exists ${T(t.soukMessageTempIds)} (
        message_id bigint unsigned not null primary key,
        con_id bigint unsigned not null,
        source_id bigint unsigned not null,
        temp_id varchar(64) not null,
        key ${sql.id(`${t.soukMessageTempIds}_lookup`)} (con_id, source_id, temp_id)
      ) ${TABLE_OPTIONS}`.execute(db);
    },
    async down(db) {
      for (const table of [t.soukMessageTempIds, t.soukRevokedTokens, t.soukSettings]) {
        await sql`drop table if exists ${T(table)}`.execute(db);
      }
    },
  };
  // As the common 015-revocations-by-subject does (auth/revoked-tokens.ts): the old rows name only
  // tokens without Souk's mark, refused anyway.
  const bySubject: Migration = {
    async up(db) {
      await sql`drop table if exists ${T(t.soukRevokedTokens)}`.execute(db);
      await sql`create table ${T(t.soukRevokedTokens)} (
        subject varchar(191) not null,
        digest varchar(64) not null,
        issued_at bigint not null,
        expires_at bigint not null,
        revoked_at bigint not null,
        primary key (subject, digest),
        key ${sql.id(`${t.soukRevokedTokens}_revoked_at`)} (revoked_at),
        key ${sql.id(`${t.soukRevokedTokens}_expires_at`)} (expires_at)
      ) ${TABLE_OPTIONS}`.execute(db);
    },
    async down(db) {
      await sql`drop table if exists ${T(t.soukRevokedTokens)}`.execute(db);
    },
  };
  // As the common 016-push-device-sessions.
  const pushSessions: Migration = {
    async up(db) {
      await sql`alter table ${T(t.soukPushDevices)}
        add column session varchar(64) not null default '',
        add column session_expires_at bigint not null default 0`.execute(db);
    },
    async down(db) {
      await sql`alter table ${T(t.soukPushDevices)} drop column session_expires_at, drop column session`.execute(db);
    },
  };
  return {
    '001-souk-tables': initial,
    ...eventMigrations(t),
    '005-souk-revocations-by-subject': bySubject,
    '006-souk-push-device-sessions': pushSessions,
  };
}

function migrator(db: Db, t: Tables): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: async () => mysqlMigrations(t) },
    migrationTableName: `${t.prefix}souk_migrations`,
    migrationLockTableName: `${t.prefix}souk_migrations_lock`,
  });
}

export async function migrateMysql(db: Db, t: Tables): Promise<string[]> {
  const lock = `${t.prefix}souk_migrate`;
  return db.connection().execute(async (conn) => {
    const got = await sql<{ ok: number | null }>`select get_lock(${lock}, 60) as ok`.execute(conn);
    if (Number(got.rows[0]?.ok) !== 1) throw new Error('another instance held the migration lock for 60 s');
    try {
      const { error, results } = await migrator(conn, t).migrateToLatest();
      if (error) throw error instanceof Error ? error : new Error(String(error));
      return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    } finally {
      await sql`select release_lock(${lock})`.execute(conn);
    }
  });
}

export async function mysqlMigrationsApplied(db: Db, t: Tables): Promise<boolean> {
  const applied = await migrator(db, t).getMigrations();
  return applied.every((m) => m.executedAt !== undefined);
}
