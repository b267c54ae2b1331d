/**
 * Opens the database named by DATABASE_URL: an embedded SQLite file or a PostgreSQL pool.
 * This is the only file that knows which driver sits under Kysely.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import pg from 'pg';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteAdapter,
  SqliteDriver,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect as KyselyDialect,
} from 'kysely';
import { openSqlite } from './sqlite-driver.js';
import type { Database, Dialect } from './schema.js';

export interface DbOptions {
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
}

/** Connection pool occupancy, for metrics. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export interface Connection {
  db: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL's pool occupancy; undefined on SQLite, which has one connection and no pool. */
  poolStats: () => PoolStats | undefined;
}

/**
 * Every write transaction takes SQLite's write lock up front, so two writers never deadlock on upgrade.
 * A failed COMMIT (disk full, I/O error) may or may not have ended the transaction already: the
 * rollback that follows must neither fail with "no transaction is active" nor hide the original
 * error (the request is answered 503, not 500), and a transaction left open must not block the next
 * one (docs/hardening.md, disk full). Written against SQL alone, so it holds for any SQLite binding.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    } catch (err) {
      if (!/within a transaction/i.test((err as Error).message)) throw err;
      // A transaction a failed rollback left open: end it, then begin.
      await connection.executeQuery(CompiledQuery.raw('rollback'));
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    }
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw('rollback'));
    } catch {
      // No transaction was open (SQLite ended it when the COMMIT failed), or the rollback itself
      // failed: the caller rethrows the error that made it roll back; beginTransaction recovers.
    }
  }
}

export function sqlitePath(url: string): string {
  return url.replace(/^sqlite:(\/\/)?/, '');
}

function sqliteDialect(url: string, opts: DbOptions): KyselyDialect {
  const path = sqlitePath(url);
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  const database = openSqlite(path, opts.statementTimeoutMs);
  // WAL with synchronous=NORMAL: a commit is in the WAL before the reply, so a crash of the
  // process loses nothing answered; only a power cut may roll back the last commits.
  // Checkpoints every ~16 MB of WAL instead of ~4 MB: a page written many times is copied back
  // once per checkpoint, so fewer, larger checkpoints do far less work per write.
  database.exec(`
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA foreign_keys = ON;
    PRAGMA wal_autocheckpoint = 4000;
    PRAGMA journal_size_limit = 67108864;
    PRAGMA cache_size = -16000;
  `);
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new ImmediateSqliteDriver({ database }),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}

// 64-bit ids and epoch-millisecond times come back as JS numbers (safe up to 2^53-1).
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

function postgresPool(url: string, opts: DbOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize,
    connectionTimeoutMillis: opts.connectTimeoutMs,
    statement_timeout: opts.statementTimeoutMs,
    query_timeout: opts.statementTimeoutMs + 1000,
    idleTimeoutMillis: 30_000,
  });
  // A client whose server goes away emits 'error': the pool reports idle ones here and drops them.
  pool.on('error', () => {});
  // A checked-out one fails its query (answered 503) but would also emit 'error' with no
  // listener, which would crash the process; the pool discards it on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

export function connect(url: string, opts: DbOptions): Connection {
  if (url.startsWith('sqlite:')) {
    return { db: new Kysely<Database>({ dialect: sqliteDialect(url, opts) }), dialect: 'sqlite', poolStats: () => undefined };
  }
  const pool = postgresPool(url, opts);
  return {
    db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
    dialect: 'postgres',
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}
