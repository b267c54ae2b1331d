/**
 * The embedded SQLite engine under Kysely: Node.js's built-in node:sqlite (22.13 and newer, the
 * runtimes Souk supports), behind the small synchronous interface Kysely's SQLite driver expects.
 */
import { createRequire } from 'node:module';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** A synchronous SQLite connection: what Kysely needs, plus plain SQL for set-up and tools. */
export interface SqliteConnection extends SqliteDatabase {
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

/** node:sqlite's rows have no prototype; Souk's rows are plain objects. */
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

type DatabaseSync = new (path: string, options: { timeout: number }) => NodeSqliteDatabase;

/**
 * node:sqlite's DatabaseSync. Node.js 22 prints an ExperimentalWarning when the module loads, on
 * every start of every command; the engine is the one Souk is tested on, so that one warning is
 * left out (any other warning still prints).
 */
function loadDatabaseSync(): DatabaseSync {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: never[]) => {
    if (!String(warning).startsWith('SQLite is an experimental feature')) emitWarning.call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return (require('node:sqlite') as { DatabaseSync: DatabaseSync }).DatabaseSync;
  } finally {
    process.emitWarning = emitWarning;
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

export function openSqlite(path: string, busyTimeoutMs: number): SqliteConnection {
  const DatabaseSync = loadDatabaseSync();
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

/** SQLite's primary result code of an engine's error (e.g. 5 for SQLITE_BUSY). */
export function sqliteResultCode(err: unknown): number | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const { errcode } = err as { errcode?: unknown };
  return typeof errcode === 'number' ? errcode & 0xff : undefined;
}
