/**
 * Opens the embedded SQLite database named by DATABASE_URL (sqlite:PATH) under Kysely, with its
 * files private to their owner and the pragmas Souk's durability and speed rest on.
 */
import { Kysely, SqliteAdapter, SqliteDriver, SqliteIntrospector, SqliteQueryCompiler, type Dialect as KyselyDialect } from 'kysely';
import type { Database } from '../common/schema.js';
import type { DbOptions } from '../common/store.js';
import { beginImmediate, openSqlite, rollbackQuietly, type SqliteConnection } from './driver.js';
import { createPrivateSqliteFile } from './files.js';

/**
 * Kysely's SQLite driver with the write path of driver.ts: every transaction takes the write lock
 * up front, and a failed COMMIT neither hides its error (answered 503, not 500) nor leaves a
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

function openSqliteFile(path: string, opts: DbOptions): SqliteConnection {
  if (path !== ':memory:') createPrivateSqliteFile(path, opts.createSqliteFolder ?? false);
  const database = openSqlite(path, opts.statementTimeoutMs);
  // WAL with synchronous=NORMAL: a commit is in the WAL before the reply, so a crash of the
  // process loses nothing answered; only a power cut may roll back the last commits.
  // Checkpoints every ~64 MB of WAL instead of ~4 MB: a page written many times is copied back
  // once per checkpoint, so fewer, larger checkpoints do far less work per write. Under many
  // writes a thread copies most of it beforehand (checkpointer.ts).
  // The page cache fills up to its size with whatever was read, so it counts in full towards the
  // process's memory: DB_CACHE_MB trades memory for fewer reads (docs/operations.md). DB_MMAP_MB
  // reads the file's first MB through a memory map instead of read calls (off by default).
  database.exec(`
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA foreign_keys = ON;
    PRAGMA wal_autocheckpoint = 16000;
    PRAGMA journal_size_limit = 67108864;
    PRAGMA cache_size = ${-(opts.cacheMb ?? 16) * 1024};
    PRAGMA mmap_size = ${(opts.mmapMb ?? 0) * 1024 * 1024};
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

export interface SqliteHandles {
  db: Kysely<Database>;
  /** The one connection under Kysely's, for the write batch (write-batch.ts). */
  connection: SqliteConnection;
  /** The WAL file, for the WAL flusher (wal-flusher.ts); undefined for an in-memory database. */
  walPath: string | undefined;
}

export function connectSqlite(path: string, opts: DbOptions): SqliteHandles {
  const connection = openSqliteFile(path, opts);
  return {
    db: new Kysely<Database>({ dialect: sqliteDialect(connection) }),
    connection,
    walPath: path === ':memory:' ? undefined : `${path}-wal`,
  };
}
