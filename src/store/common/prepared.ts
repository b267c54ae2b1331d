/**
 * Kysely builds and compiles a query's SQL on every call; on the request path that costs more
 * than running it. A prepared query is built once (per database handle) with placeholder
 * arguments and then run with new parameter values, so each request skips straight to the database.
 */
import type { Compilable, CompiledQuery, Kysely, QueryResult, RawBuilder } from 'kysely';
import type { Database } from './schema.js';

type Db = Kysely<Database>;

/** Where a prepared query runs: through Kysely, or straight on the driver (sqlite/write-batch.ts, postgres/runner.ts). */
export interface QueryRunner {
  /** Compiles the query templates, in its database's SQL; the same handle for every runner of a store. */
  readonly db: Db;
  /** `name` is the prepared query's own, the same on every call: a runner may keep the statement under it. */
  execute<O>(query: CompiledQuery<O>, name?: string): Promise<QueryResult<O>>;
  /**
   * The rows as arrays of their columns' values, in the order selected, where the driver gives
   * them so, more cheaply than as objects (SQLite, pg); otherwise the objects' values are taken.
   */
  executeArrays?(query: CompiledQuery, name?: string): Promise<unknown[][]>;
}

/** A prepared query: run with its arguments, for the rows as objects or (`arrays`) as arrays of values. */
export interface PreparedQuery<A extends unknown[], O> {
  (runner: QueryRunner, ...args: A): Promise<QueryResult<O>>;
  arrays(runner: QueryRunner, ...args: A): Promise<unknown[][]>;
}

/** An object keeps its keys in insertion order (none of Souk's column names is a number): a row's values come in the order selected. */
export const rowValues = <O>({ rows }: QueryResult<O>) => rows.map((row) => Object.values(row as object));

export function kyselyRunner(db: Db): QueryRunner {
  return { db, execute: (query) => db.executeQuery(query) };
}

interface Template {
  compiled: CompiledQuery;
  /** For each SQL parameter, the index of the argument it takes, or -1 for a constant. */
  slots: number[];
}

/** Marks where an argument lands in the compiled parameters; compared by identity. */
class Slot {
  constructor(readonly index: number) {}
}

let prepared = 0;

export function prepare<A extends unknown[], O>(build: (db: Db, ...args: A) => Compilable<O>): PreparedQuery<A, O> {
  const templates = new WeakMap<Db, Template>();
  const name = `souk_${++prepared}`;

  function template(db: Db, arity: number): Template {
    let t = templates.get(db);
    if (!t) {
      const slots = Array.from({ length: arity }, (_, i) => new Slot(i));
      const compiled = build(db, ...(slots as unknown as A)).compile();
      t = { compiled, slots: compiled.parameters.map((p) => (p instanceof Slot ? p.index : -1)) };
      templates.set(db, t);
    }
    return t;
  }

  function compiledWith(runner: QueryRunner, args: A): CompiledQuery<O> {
    const { compiled, slots } = template(runner.db, args.length);
    const parameters = slots.map((slot, i) => (slot >= 0 ? args[slot] : compiled.parameters[i]));
    // A literal of one fixed shape, not a spread: this runs for every statement of every request.
    return { query: compiled.query, queryId: compiled.queryId, sql: compiled.sql, parameters } as CompiledQuery<O>;
  }

  const run = (runner: QueryRunner, ...args: A) => runner.execute<O>(compiledWith(runner, args), name);
  run.arrays = (runner: QueryRunner, ...args: A): Promise<unknown[][]> => {
    const query = compiledWith(runner, args);
    return runner.executeArrays ? runner.executeArrays(query, name) : runner.execute<O>(query, name).then(rowValues);
  };
  return run;
}

/** A raw SQL template (sql`...`) in the form prepare() takes, for what Kysely's builder cannot say. */
export function rawQuery<O>(db: Db, query: RawBuilder<O>): Compilable<O> {
  return { compile: () => query.compile(db) };
}
