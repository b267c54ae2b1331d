/**
 * The embedded SQLite engine under Kysely. Node.js 22.13+ ships one (node:sqlite) and Souk uses
 * it there; on Node.js 20 it uses better-sqlite3 12. better-sqlite3 12 aborts the process on
 * Node.js 24 when a statement is freed after the runtime's environment is gone (an upstream bug),
 * and its fixed line, 13, no longer runs on Node.js 20, so each runtime gets the engine that is
 * sound on it. Both sit behind the small synchronous interface Kysely's SQLite driver expects.
 */
import { createRequire } from 'node:module';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

export type SqliteEngine = 'node:sqlite' | 'better-sqlite3';

/** A synchronous SQLite connection: what Kysely needs, plus plain SQL for set-up and tools. */
export interface SqliteConnection extends SqliteDatabase {
  readonly engine: SqliteEngine;
  /** Whether a transaction is open on the connection; undefined when the engine cannot tell. */
  inTransaction(): boolean | undefined;
  /** The statement of this SQL (prepared once) giving each row as its columns' values in order. */
  prepareArrays(sql: string): ArraysStatement;
  exec(sql: string): void;
  all<T = Record<string, unknown>>(sql: string, ...params: unknown[]): T[];
  run(sql: string, ...params: unknown[]): void;
}

/**
 * A reading statement whose rows are arrays: an engine builds an object row property by
 * property, which costs more than the query itself when a page has many rows.
 */
export interface ArraysStatement {
  all(params: readonly unknown[]): unknown[][];
}

/** node:sqlite's rows have no prototype; plain objects keep both engines' rows alike. */
const plain = (rows: unknown[]) => rows.map((row) => ({ ...(row as object) }));

/**
 * Makes a statement's row, read as an array, into a plain object keyed by its columns, as the
 * engine would (a later column of the same name wins). An engine sets a row's properties one at a
 * time through V8's API, which costs more than the query itself for a page of rows; a copy of an
 * object that already holds the keys, in order, starts with the row's final layout.
 */
export function rowBuilder(columns: readonly string[]): (values: readonly unknown[]) => Record<string, unknown> {
  const template: Record<string, unknown> = {};
  // Defined, not assigned: a column named __proto__ is a key like the others, as in the engine's rows.
  for (const column of columns)
    Object.defineProperty(template, column, { value: null, writable: true, enumerable: true, configurable: true });
  return (values) => {
    const row = { ...template };
    for (let i = 0; i < columns.length; i++) row[columns[i]!] = values[i];
    return row;
  };
}

/** A reading statement's rows, read as arrays, as objects (rowBuilder). */
function objectRows<S extends { all(...params: unknown[]): unknown[]; iterate(...params: unknown[]): IterableIterator<unknown> }>(
  statement: S,
  columns: readonly string[],
): Pick<SqliteStatement, 'all' | 'iterate'> {
  const row = rowBuilder(columns);
  return {
    all: (params) => (statement.all(...params) as unknown[][]).map(row),
    *iterate(params) {
      for (const values of statement.iterate(...params)) yield row(values as unknown[]);
    },
  };
}

const columnNames = (statement: { columns(): unknown[] }) => statement.columns().map((c) => (c as { name: string }).name);

const require = createRequire(import.meta.url);

interface NodeSqliteStatement {
  columns(): unknown[];
  /** Node.js 22.16 and 24. */
  setReturnArrays?(enabled: boolean): void;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...params: unknown[]): IterableIterator<unknown>;
}
interface NodeSqliteDatabase {
  prepare(sql: string): NodeSqliteStatement;
  /** Node.js 22.16 and 24. */
  readonly isTransaction?: boolean;
  exec(sql: string): void;
  close(): void;
}

function loadNodeSqlite(): (new (path: string, options: { timeout: number }) => NodeSqliteDatabase) | undefined {
  try {
    return (require('node:sqlite') as { DatabaseSync: new (path: string, options: { timeout: number }) => NodeSqliteDatabase })
      .DatabaseSync;
  } catch {
    return undefined; // Node.js 20, or 22 before 22.13 without --experimental-sqlite
  }
}

/** Each distinct SQL text is prepared once and reused. */
function cached<S>(prepare: (sql: string) => S): (sql: string) => S {
  const statements = new Map<string, S>();
  return (sql) => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = prepare(sql)));
    return statement;
  };
}

function nodeSqlite(DatabaseSync: NonNullable<ReturnType<typeof loadNodeSqlite>>, path: string, busyTimeoutMs: number): SqliteConnection {
  const db = new DatabaseSync(path, { timeout: busyTimeoutMs });
  const prepare = cached((sql: string): SqliteStatement => {
    const statement = db.prepare(sql);
    const columns = columnNames(statement);
    const run = (params: readonly unknown[]) => statement.run(...params);
    if (columns.length > 0 && statement.setReturnArrays) {
      statement.setReturnArrays(true);
      return { reader: true, run, ...objectRows(statement, columns) };
    }
    // Node.js 22.13-22.15 gives no arrays: its rows are copied instead.
    return {
      reader: columns.length > 0,
      run,
      all: (params) => plain(statement.all(...params)),
      iterate: (params) => statement.iterate(...params),
    };
  });
  return {
    engine: 'node:sqlite',
    prepare,
    inTransaction: () => db.isTransaction,
    prepareArrays: cached((sql: string): ArraysStatement => {
      const statement = db.prepare(sql);
      if (statement.setReturnArrays) {
        statement.setReturnArrays(true);
        return { all: (params) => statement.all(...params) as unknown[][] };
      }
      return { all: (params) => statement.all(...params).map((row) => Object.values(row as object)) };
    }),
    close: () => db.close(),
    exec: (sql) => db.exec(sql),
    all: <T>(sql: string, ...params: unknown[]) => plain(db.prepare(sql).all(...params)) as T[],
    run: (sql, ...params) => void db.prepare(sql).run(...params),
  };
}

function betterSqlite3(path: string, busyTimeoutMs: number): SqliteConnection {
  let BetterSqlite3: typeof import('better-sqlite3');
  try {
    BetterSqlite3 = require('better-sqlite3');
  } catch (err) {
    throw new Error(
      `SQLite needs Node.js 22.13 or newer (built-in node:sqlite) or the better-sqlite3 package, which failed to load: ${(err as Error).message}`,
      { cause: err },
    );
  }
  const db = new BetterSqlite3(path, { timeout: busyTimeoutMs });
  const prepare = cached((sql: string): SqliteStatement => {
    const statement = db.prepare(sql);
    if (!statement.reader) return statement as unknown as SqliteStatement;
    const columns = columnNames(statement);
    statement.raw(true);
    return { reader: true, run: (params) => statement.run(...params), ...objectRows(statement, columns) };
  });
  return {
    engine: 'better-sqlite3',
    prepare,
    inTransaction: () => db.inTransaction,
    prepareArrays: cached((sql: string): ArraysStatement => {
      const statement = db.prepare(sql).raw(true);
      return { all: (params) => statement.all(...params) as unknown[][] };
    }),
    close: () => db.close(),
    exec: (sql) => db.exec(sql),
    all: <T>(sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as T[],
    run: (sql, ...params) => void db.prepare(sql).run(...params),
  };
}

/**
 * Starts a write transaction holding SQLite's write lock up front, so two writers never deadlock
 * on upgrade. A transaction that a failed COMMIT and rollback left open is ended first.
 */
export function beginImmediate(connection: SqliteConnection): void {
  try {
    connection.prepare('begin immediate').run([]);
  } catch (err) {
    if (!/within a transaction/i.test((err as Error).message)) throw err;
    connection.exec('rollback');
    connection.prepare('begin immediate').run([]);
  }
}

/**
 * Rolls back whatever is open. A failed COMMIT (disk full, I/O error) may or may not have ended
 * the transaction already, so "no transaction is active" is not an error here; nor is a failed
 * rollback, which beginImmediate recovers from: the caller reports the error that made it roll back.
 */
export function rollbackQuietly(connection: SqliteConnection): void {
  try {
    connection.exec('rollback');
  } catch {
    // nothing was open, or the next beginImmediate ends it
  }
}

export function openSqlite(path: string, busyTimeoutMs: number): SqliteConnection {
  const DatabaseSync = loadNodeSqlite();
  return DatabaseSync ? nodeSqlite(DatabaseSync, path, busyTimeoutMs) : betterSqlite3(path, busyTimeoutMs);
}

/** SQLite's primary result code of an error from either engine (e.g. 5 for SQLITE_BUSY). */
export function sqliteResultCode(err: unknown): number | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const { errcode, code } = err as { errcode?: unknown; code?: unknown };
  if (typeof errcode === 'number') return errcode & 0xff;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? BETTER_SQLITE_CODES[code.split('_')[1] ?? ''] : undefined;
}

const BETTER_SQLITE_CODES: Record<string, number> = {
  BUSY: 5,
  LOCKED: 6,
  READONLY: 8,
  IOERR: 10,
  CORRUPT: 11,
  FULL: 13,
  CANTOPEN: 14,
  NOTADB: 26,
};
