/**
 * Migrations of Souk's own tables on a WordPress database (migrations/index.ts), booked in
 * `{prefix}souk_migrations`. Instances that start together take turns under a named lock (GET_LOCK).
 */
import { Migrator, sql } from 'kysely';
import type { Db, Tables } from './context.js';
import { mysqlMigrations } from './migrations/index.js';

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
