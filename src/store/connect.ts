/**
 * Opens the database named by DATABASE_URL: an embedded SQLite file or a PostgreSQL pool.
 * This is the only file that knows which driver sits under Kysely.
 */
import { createRequire } from 'node:module';
import type { Pool } from 'pg';
import {
  Kysely,
  PostgresDialect,
  SqliteAdapter,
  SqliteDriver,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Dialect as KyselyDialect,
} from 'kysely';
import { beginImmediate, openSqlite, rollbackQuietly, type SqliteConnection } from './sqlite-driver.js';
import { createPrivateSqliteFile, looseSqlitePermissions, type LoosePermission } from './sqlite-files.js';
import type { Database, Dialect } from './schema.js';

export interface DbOptions {
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  /** PostgreSQL: send the request path's queries as named statements (postgres-runner.ts); default true. */
  preparedStatements?: boolean;
  /** SQLite: the page cache in MB; default 16. */
  cacheMb?: number;
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
  /** PostgreSQL's pool, under Kysely's; for the request path's queries (postgres-runner.ts). */
  pgPool?: Pool;
  /** SQLite's one connection, under Kysely's; for the write batch (sqlite-write-batch.ts). */
  sqlite?: SqliteConnection;
  /** SQLite's WAL file, for the WAL flusher (wal-flusher.ts); undefined for an in-memory database. */
  sqliteWal?: string;
}

/**
 * Kysely's SQLite driver with the write path of sqlite-driver.ts: every transaction takes the write
 * lock up front, and a failed COMMIT neither hides its error (answered 503, not 500) nor leaves a
 * transaction open to block the next one (docs/hardening.md, disk full).
 */
class ImmediateSqliteDriver extends SqliteDriver {
  constructor(private readonly connection: SqliteConnection) {
    super({ database: connection });
  }

  override async beginTransaction(): Promise<void> {
    beginImmediate(this.connection);
  }

  override async rollbackTransaction(): Promise<void> {
    rollbackQuietly(this.connection);
  }
}

export function sqlitePath(url: string): string {
  return url.replace(/^sqlite:(\/\/)?/, '');
}

/** The SQLite database's folder and files that group or others can read; none for PostgreSQL or in memory. */
export function looseDatabasePermissions(url: string): LoosePermission[] {
  const path = url.startsWith('sqlite:') ? sqlitePath(url) : ':memory:';
  return path === ':memory:' ? [] : looseSqlitePermissions(path);
}

function openSqliteFile(url: string, opts: DbOptions): SqliteConnection {
  const path = sqlitePath(url);
  if (path !== ':memory:') createPrivateSqliteFile(path);
  const database = openSqlite(path, opts.statementTimeoutMs);
  // WAL with synchronous=NORMAL: a commit is in the WAL before the reply, so a crash of the
  // process loses nothing answered; only a power cut may roll back the last commits.
  // Checkpoints every ~64 MB of WAL instead of ~4 MB: a page written many times is copied back
  // once per checkpoint, so fewer, larger checkpoints do far less work per write.
  // The page cache fills up to its size with whatever was read, so it counts in full towards the
  // process's memory: DB_CACHE_MB trades memory for fewer reads (docs/operations.md).
  database.exec(`
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA foreign_keys = ON;
    PRAGMA wal_autocheckpoint = 16000;
    PRAGMA journal_size_limit = 67108864;
    PRAGMA cache_size = ${-(opts.cacheMb ?? 16) * 1024};
  `);
  return database;
}

function sqliteDialect(database: SqliteConnection): KyselyDialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new ImmediateSqliteDriver(database),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}

const require = createRequire(import.meta.url);
let pgDriver: typeof import('pg') | undefined;

/** pg is loaded on first use: an SQLite installation never needs it (with ioredis, ~10 MB of RSS). */
function loadPg(): typeof import('pg') {
  if (!pgDriver) {
    pgDriver = require('pg') as typeof import('pg');
    // 64-bit ids and epoch-millisecond times come back as JS numbers (safe up to 2^53-1).
    pgDriver.types.setTypeParser(pgDriver.types.builtins.INT8, (value: string) => Number(value));
  }
  return pgDriver;
}

function postgresPool(url: string, opts: DbOptions): Pool {
  const pool = new (loadPg().Pool)({
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
    const sqlite = openSqliteFile(url, opts);
    const path = sqlitePath(url);
    const sqliteWal = path === ':memory:' ? undefined : `${path}-wal`;
    return { db: new Kysely<Database>({ dialect: sqliteDialect(sqlite) }), dialect: 'sqlite', poolStats: () => undefined, sqlite, sqliteWal };
  }
  const pool = postgresPool(url, opts);
  return {
    db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
    dialect: 'postgres',
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    pgPool: pool,
  };
}
