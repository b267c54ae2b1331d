/**
 * The prepared queries' runners on SQLite (common/prepared.ts): straight on the one connection,
 * synchronously, for the write batch's transactions (write-batch.ts) and for the reads outside any.
 */
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import { rowValues, type QueryRunner } from '../common/prepared.js';
import type { Database } from '../common/schema.js';
import type { SqliteConnection } from './driver.js';

/** Runs compiled queries synchronously on the connection, as Kysely's SQLite driver would. */
export function sqliteRunner(db: Kysely<Database>, connection: SqliteConnection): QueryRunner {
  function run<O>(query: CompiledQuery<O>): QueryResult<O> {
    const statement = connection.prepare(query.sql);
    if (statement.reader) return { rows: statement.all(query.parameters) as O[] };
    const { changes, lastInsertRowid } = statement.run(query.parameters);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  }
  return {
    db,
    execute: <O>(query: CompiledQuery<O>) => settled(() => run(query)),
    executeArrays: (query) => settled(() => connection.prepareArrays(query.sql).all(query.parameters)),
  };
}

/** The value, or the error thrown, as a promise: how Kysely's driver answers. */
function settled<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (err) {
    return Promise.reject(err as Error);
  }
}

/**
 * Runs the reads made outside any transaction. A statement runs synchronously: while no
 * transaction is open on the connection, it reads what has committed and nothing interleaves
 * with it, so it skips Kysely's connection lock. While one is open (a write batch between two
 * of its statements, an import), it waits for that lock like any Kysely query, so it never
 * reads rows that may yet roll back.
 */
export function sqliteReadRunner(db: Kysely<Database>, connection: SqliteConnection): QueryRunner {
  const direct = sqliteRunner(db, connection);
  const idle = () => connection.inTransaction() === false;
  return {
    db,
    execute: <O>(query: CompiledQuery<O>) => (idle() ? direct.execute(query) : db.executeQuery(query)),
    executeArrays: (query) => (idle() ? direct.executeArrays!(query) : db.executeQuery(query).then(rowValues)),
  };
}
