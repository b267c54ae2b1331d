/**
 * The request path's reads outside units of work (a conversation read, the chat list), made in one
 * turn of the event loop by one request or several, sent as one query of several SELECTs on one
 * pooled connection (context.ts, together): a round trip costs Souk and MariaDB a system call
 * and a wake-up each, more than a small read's own work. Anything else goes alone, as it came.
 * When a query of several fails, none of its results comes back: each read is run again alone,
 * so every caller gets its own answer or error (a read can run twice).
 */
import type { CompiledQuery, QueryResult } from 'kysely';
import { routedThrough, together, type Db, type MysqlContext } from './context.js';
import { turnBatches } from '../common/turn-batches.js';

/** More in one query would make the first callers wait on the last ones' work. */
const MOST = 8;

const isRead = (text: string) => /^\s*select\b/i.test(text) && !/\bfor\s+(update|share)\b|\block\s+in\s+share\s+mode\b/i.test(text);

interface Waiting {
  query: CompiledQuery;
  resolve: (result: QueryResult<unknown>) => void;
  reject: (error: unknown) => void;
}

export function batchedReads(db: Db, ctx: MysqlContext): Db {
  if (!ctx.severalStatements) return db;
  const alone = (w: Waiting) => db.executeQuery(w.query).then(w.resolve, w.reject);
  const sendBatch = (batch: Waiting[]) => {
    if (batch.length === 1) return void alone(batch[0]!);
    together(
      db,
      ctx,
      batch.map((w) => w.query),
    ).then(
      (results) => batch.forEach((w, k) => w.resolve(results[k]!)),
      () => batch.forEach((w) => void alone(w)),
    );
  };
  // Two turns: the users and listings the repositories gather in one turn (repositories.ts,
  // batched) ask in the next, and go with the reads asked beside them.
  const ask = turnBatches(sendBatch, { most: MOST, turns: 2 });
  const send = async (queries: CompiledQuery[]): Promise<QueryResult<unknown>[]> => {
    if (queries.length !== 1 || !isRead(queries[0]!.sql)) return together(db, ctx, queries);
    return [await new Promise<QueryResult<unknown>>((resolve, reject) => ask({ query: queries[0]!, resolve, reject }))];
  };
  return routedThrough(db, send);
}
