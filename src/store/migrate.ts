import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Database, Dialect } from './schema.js';
import { initialMigration } from './migrations/001-initial.js';

/** Migrations ship inside the code, so a built package needs no files on disk to find them. */
class BundledMigrations implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return { '001-initial': initialMigration(this.dialect) };
  }
}

export function migrator(db: Kysely<Database>, dialect: Dialect): Migrator {
  return new Migrator({ db, provider: new BundledMigrations(dialect), migrationTableName: 'souk_migrations', migrationLockTableName: 'souk_migrations_lock' });
}

/** Applies every pending migration. Kysely takes a lock, so instances starting together are safe. */
export async function migrateToLatest(db: Kysely<Database>, dialect: Dialect): Promise<string[]> {
  const { error, results } = await migrator(db, dialect).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when every bundled migration has been applied. */
export async function migrationsApplied(db: Kysely<Database>, dialect: Dialect): Promise<boolean> {
  const migrations = await migrator(db, dialect).getMigrations();
  return migrations.every((m) => m.executedAt !== undefined);
}
