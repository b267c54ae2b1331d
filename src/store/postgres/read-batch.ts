/**
 * The request path's reads outside units of work (a conversation read, the chat list, the
 * favourites list), made in one turn of the event loop by one request or several, sent as one
 * simple-protocol message on one pooled connection: a round trip costs Souk and PostgreSQL a socket
 * write and a wake-up each, more than a small read's own work. Each read goes as an EXECUTE of its
 * named statement (transaction-runner.ts, executeText), so the server parses a line and plans
 * nothing, as for the read sent alone. A read whose statement the connection has not prepared yet,
 * or whose parameters cannot be written out, runs alone on it, the plain path, which prepares it for
 * next time. Anything else (a write, a locking read, a statement without a name) goes alone, as it
 * came. When a message of several fails, each of its reads runs again alone, so every caller gets
 * its own answer or error (a read can run twice).
 */
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Pool, QueryResult as PgResult } from 'pg';
import type { QueryRunner } from '../common/prepared.js';
import type { Database } from '../common/schema.js';
import { turnBatches } from '../common/turn-batches.js';
import { asKyselyResult, statementConfig } from './runner.js';
import { executeText, oneAtATime, preparedStatementsOf, quoted, simpleMessage } from './transaction-runner.js';

const isRead = (text: string) => /^\s*select\b/i.test(text) && !/\bfor\s+(no\s+key\s+update|update|key\s+share|share)\b/i.test(text);

interface Waiting {
  query: CompiledQuery;
  name: string;
  /** The rows as arrays of values (pg's rowMode 'array'), not objects. */
  arrays: boolean;
  resolve: (result: PgResult) => void;
  reject: (error: unknown) => void;
}

const configOf = (w: Waiting) => statementConfig(w.query, w.name, w.arrays);

/**
 * @param plain the pool's runner of named statements (runner.ts): what goes alone goes through it.
 */
export function batchedReads(db: Kysely<Database>, pool: Pool, plain: QueryRunner): QueryRunner {
  /** Alone on any pooled connection, the plain path. */
  const alone = (w: Waiting) => pool.query(configOf(w)).then(w.resolve, w.reject);

  /**
   * On one pooled connection: first, alone, the reads it has not prepared (which prepares them);
   * then the others written out, as one message per row form. A connection that broke meanwhile is
   * dropped by the pool when released.
   */
  async function onOneConnection(batch: Waiting[]): Promise<void> {
    const client = await pool.connect();
    try {
      const send = oneAtATime(client);
      const prepared = preparedStatementsOf(client);
      const quote = (s: string) => quoted(s, client);
      const written: { w: Waiting; text: string }[] = [];
      for (const w of batch) {
        const text = prepared.has(w.name) ? executeText(w.name, w.query.parameters, quote) : undefined;
        if (text !== undefined) written.push({ w, text });
        else
          await send(configOf(w)).then(
            (r) => (prepared.add(w.name), w.resolve(r)),
            (error: unknown) => w.reject(error),
          );
      }
      for (const arrays of [false, true]) {
        const run = written.filter((x) => x.w.arrays === arrays);
        if (run.length === 0) continue;
        try {
          const results = await simpleMessage(send, run.map((x) => x.text).join('; '), arrays);
          run.forEach((x, i) => x.w.resolve(results[i]!));
        } catch {
          // Which of them failed is not said: each runs again alone, for its own answer.
          run.forEach((x) => void alone(x.w));
        }
      }
    } finally {
      client.release();
    }
  }

  // At most 8 in a message: more would make the first callers wait on the last ones' work.
  const ask = turnBatches<Waiting>(
    (batch) => {
      if (batch.length === 1) return void alone(batch[0]!);
      onOneConnection(batch).catch((error: unknown) => batch.forEach((w) => w.reject(error)));
    },
    { most: 8, turns: 1 },
  );
  const read = (query: CompiledQuery, name: string, arrays: boolean) =>
    new Promise<PgResult>((resolve, reject) => ask({ query, name, arrays, resolve, reject }));

  const batched = (query: CompiledQuery, name: string | undefined): name is string => name !== undefined && isRead(query.sql);
  return {
    db,
    async execute<O>(query: CompiledQuery<O>, name?: string): Promise<QueryResult<O>> {
      return batched(query, name) ? asKyselyResult<O>(await read(query, name, false)) : plain.execute(query, name);
    },
    async executeArrays(query: CompiledQuery, name?: string): Promise<unknown[][]> {
      return batched(query, name) ? ((await read(query, name, true)).rows as unknown[][]) : plain.executeArrays!(query, name);
    },
  };
}
