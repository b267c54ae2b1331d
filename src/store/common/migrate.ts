/**
 * The migrations runner every database shares: Kysely's migrator over a list of migrations that
 * each database gives (`<db>/migrations/index.ts`). The list ships inside the
 * code, so a built package needs no files on disk to find it.
 */
import { Migrator, type Kysely, type Migration } from 'kysely';
import type { Database } from './schema.js';

/** Migrations by name, applied in name order. A name once applied must stay in the list. */
export type Migrations = Record<string, Migration>;

export interface MigratorOptions {
  /** Where the bookkeeping tables live, when not the database's default. */
  schema?: string | undefined;
}

function migrator(db: Kysely<Database>, migrations: Migrations, options: MigratorOptions): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'souk_migrations',
    migrationLockTableName: 'souk_migrations_lock',
    ...(options.schema ? { migrationTableSchema: options.schema } : {}),
  });
}

/** Applies every pending migration; the names of those applied now. */
export async function migrateToLatest(db: Kysely<Database>, migrations: Migrations, options: MigratorOptions = {}): Promise<string[]> {
  const { error, results } = await migrator(db, migrations, options).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when every migration of the list has been applied. */
export async function migrationsApplied(db: Kysely<Database>, migrations: Migrations, options: MigratorOptions = {}): Promise<boolean> {
  const applied = await migrator(db, migrations, options).getMigrations();
  return applied.every((m) => m.executedAt !== undefined);
}
