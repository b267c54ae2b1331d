/**
 * The store: one factory that opens the database, runs migrations and hands out
 * repositories, plain or bound to a transaction. The rest of Souk sees no SQL.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { CatalogUnitOfWork, Repositories, UnitOfWork } from '../domain/ports.js';
import { connect, type DbOptions, type PoolStats } from './connect.js';
import { migrateToLatest, migrationsApplied } from './migrate.js';
import type { Database, Dialect } from './schema.js';
import { catalogRepository } from './repositories/catalog.js';
import { ListingCache } from './listing-cache.js';
import { marketplaceRepositories } from './repositories/marketplace.js';
import { kyselyRunner } from './prepared.js';
import { postgresRunner } from './postgres-runner.js';
import { postgresTransaction } from './postgres-transaction.js';
import { SqliteWriteBatch, sqliteRunner } from './sqlite-write-batch.js';
import { WalFlusher } from './wal-flusher.js';
import { CATALOG_VERSION, type SettingsRepository } from '../domain/ports.js';
import { settingsRepository } from './repositories/settings.js';

export type { Dialect } from './schema.js';
export type { PoolStats } from './connect.js';
export { isStoreUnavailable } from './errors.js';
export { looseDatabasePermissions } from './connect.js';
export type { LoosePermission } from './sqlite-files.js';

export interface Store extends UnitOfWork, CatalogUnitOfWork {
  readonly dialect: Dialect;
  readonly repos: Repositories;
  readonly settings: SettingsRepository;
  migrate(): Promise<string[]>;
  /** True when the database answers and every migration is applied. */
  ready(): Promise<boolean>;
  /** The two parts of ready(), for a readiness probe that says which one failed. */
  readiness(): Promise<{ database: boolean; migrations: boolean }>;
  /** Connection pool occupancy (PostgreSQL); undefined on SQLite. */
  poolStats(): PoolStats | undefined;
  /** Background syncs of SQLite's WAL so far (wal-flusher.ts); undefined on PostgreSQL and in memory. */
  walSyncs(): number | undefined;
  close(): Promise<void>;
  /** The Kysely instance, for tests and tools that inspect the database. */
  readonly db: Kysely<Database>;
}

export function openStore(url: string, opts: DbOptions): Store {
  const { db, dialect, poolStats, pgPool, sqlite, sqliteWal } = connect(url, opts);
  async function readiness() {
    try {
      await sql`select 1`.execute(db);
    } catch {
      return { database: false, migrations: false };
    }
    try {
      return { database: true, migrations: await migrationsApplied(db, dialect) };
    } catch {
      return { database: true, migrations: false };
    }
  }
  const listingCache = new ListingCache();
  const walFlusher = sqliteWal ? new WalFlusher(sqliteWal) : undefined;
  const afterCommit = walFlusher ? () => walFlusher.afterCommit() : undefined;
  const named = opts.preparedStatements ?? true;
  const transaction = ((): UnitOfWork['transaction'] => {
    if (pgPool) return postgresTransaction(db, pgPool, named, (run) => marketplaceRepositories(run, listingCache));
    if (sqlite) return new SqliteWriteBatch(db, sqlite, marketplaceRepositories(sqliteRunner(db, sqlite), listingCache), undefined, afterCommit).transaction;
    throw new Error('the database connection has neither a PostgreSQL pool nor an SQLite connection');
  })();
  return {
    dialect,
    db,
    repos: marketplaceRepositories(pgPool ? postgresRunner(db, pgPool, named) : kyselyRunner(db, dialect), listingCache),
    settings: settingsRepository(db),
    transaction,
    catalogTransaction: (fn) =>
      db.transaction().execute(async (trx) => {
        const result = await fn(catalogRepository(trx));
        await settingsRepository(trx).set(CATALOG_VERSION, randomUUID());
        return result;
      }),
    migrate: () => migrateToLatest(db, dialect),
    async ready() {
      const { database, migrations } = await readiness();
      return database && migrations;
    },
    readiness,
    poolStats,
    walSyncs: () => walFlusher?.snapshot().flushes,
    async close() {
      walFlusher?.close();
      await db.destroy();
    },
  };
}
