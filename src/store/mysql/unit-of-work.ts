/**
 * A unit of work on one pooled connection: one transaction, begun by the first statement that
 * needs it (a unit that only reads sends no BEGIN, lock nor COMMIT), with the writer's row lock
 * (repositories.ts, WriteScope). What needs no answer waits on the connection and goes with the
 * next statement, in one round trip: BEGIN and the writer's lock with the unit's first statement
 * that needs them, writes whose result nobody reads (scope.later) with the next statement or
 * COMMIT. Every statement of the unit goes through the connection handed to it, in the order it
 * was asked for, so what waits is always sent before what follows it.
 */
import { CompiledQuery, type QueryResult } from 'kysely';
import { routedThrough, together, type Db, type MysqlContext } from './context.js';
import { lockWriter, type WriteScope } from './repositories.js';

const BEGIN = CompiledQuery.raw('begin');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

export async function unitOfWork<T>(
  db: Db,
  ctx: MysqlContext,
  writer: number | undefined,
  fn: (connection: Db, scope: WriteScope) => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (raw) => {
    let waiting: CompiledQuery[] = [];
    let begun = false;
    /** BEGIN went to the server: an error from then on is rolled back. */
    let sent = false;
    let locked = writer === undefined;
    const send = async (queries: CompiledQuery[]): Promise<QueryResult<unknown>[]> => {
      if (waiting.length === 0) return together(raw, ctx, queries);
      const before = waiting;
      waiting = [];
      sent ||= before.includes(BEGIN);
      return (await together(raw, ctx, [...before, ...queries])).slice(before.length);
    };
    const begin = () => {
      if (!begun) waiting.push(BEGIN);
      begun = true;
    };
    const scope: WriteScope = {
      writer,
      enter() {
        begin();
        if (!locked) waiting.push(lockWriter.compiled(ctx, '', writer!));
        locked = true;
        return Promise.resolve();
      },
      enterTakingLock() {
        begin();
        if (locked) return false;
        // The caller's next statement, on this connection, takes it.
        locked = true;
        return true;
      },
      later(query) {
        if (!begun) throw new Error('a write waits for the transaction: enter it first');
        waiting.push(query);
      },
      entered: () => begun,
    };
    const connection = routedThrough(raw, send);
    try {
      const result = await fn(connection, scope);
      if (begun) await send([COMMIT]);
      return result;
    } catch (error) {
      waiting = [];
      if (sent) await raw.executeQuery(ROLLBACK);
      throw error;
    }
  });
}

/**
 * `connection` for code whose writes nobody reads the result of (the event recorder): once the
 * transaction is entered, each INSERT, UPDATE or DELETE waits (scope.later) and goes with the
 * unit's next statement or COMMIT, answered at once with an empty result. Reads go as they came.
 */
export function writesLater(connection: Db, ctx: MysqlContext, scope: WriteScope): Db {
  return routedThrough(connection, async (queries) => {
    if (scope.entered() && queries.every((q) => /^\s*(insert|update|delete)\b/i.test(q.sql))) {
      for (const q of queries) scope.later(q);
      return queries.map(() => ({ rows: [] }));
    }
    return together(connection, ctx, queries);
  });
}
