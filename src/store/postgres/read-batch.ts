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
import type { Pool, PoolClient, QueryResult as PgResult } from 'pg';
import type { QueryRunner } from '../common/prepared.js';
import type { Database } from '../common/schema.js';
import { asKyselyResult } from './runner.js';
import { executeText, preparedStatementsOf, quoted } from './transaction-runner.js';

/** More in one message would make the first callers wait on the last ones' work. */
const MOST = 8;

const isRead = (text: string) => /^\s*select\b/i.test(text) && !/\bfor\s+(no\s+key\s+update|update|key\s+share|share)\b/i.test(text);

interface Waiting {
  query: CompiledQuery;
  name: string;
  /** The rows as arrays of values (pg's rowMode 'array'), not objects. */
  arrays: boolean;
  resolve: (result: PgResult) => void;
  reject: (error: unknown) => void;
}

/** One read's config for pg: its named statement, with its parameters. */
const configOf = (w: Waiting) => ({
  name: w.name,
  text: w.query.sql,
  values: w.query.parameters as unknown[],
  ...(w.arrays ? { rowMode: 'array' as const } : {}),
});

/** pg answers a message of several statements with one result each. */
async function simple(client: PoolClient, text: string, arrays: boolean): Promise<PgResult[]> {
  const results = (await (arrays ? client.query({ text, rowMode: 'array' }) : client.query(text))) as unknown as PgResult | PgResult[];
  return Array.isArray(results) ? results : [results];
}

/**
 * @param plain the pool's runner of named statements (runner.ts): what goes alone goes through it.
 */
export function batchedReads(db: Kysely<Database>, pool: Pool, plain: QueryRunner): QueryRunner {
  let waiting: Waiting[] = [];

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
      const prepared = preparedStatementsOf(client);
      const quote = (s: string) => quoted(s, client);
      const written: { w: Waiting; text: string }[] = [];
      for (const w of batch) {
        const text = prepared.has(w.name) ? executeText(w.name, w.query.parameters, quote) : undefined;
        if (text !== undefined) written.push({ w, text });
        else
          await client.query(configOf(w)).then(
            (r) => (prepared.add(w.name), w.resolve(r)),
            (error: unknown) => w.reject(error),
          );
      }
      for (const arrays of [false, true]) {
        const run = written.filter((x) => x.w.arrays === arrays);
        if (run.length === 0) continue;
        try {
          const results = await simple(client, run.map((x) => x.text).join('; '), arrays);
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

  const flush = () => {
    const all = waiting;
    waiting = [];
    for (let i = 0; i < all.length; i += MOST) {
      const batch = all.slice(i, i + MOST);
      if (batch.length === 1) void alone(batch[0]!);
      else onOneConnection(batch).catch((error: unknown) => batch.forEach((w) => w.reject(error)));
    }
  };

  /** The read's result once the reads asked for in this turn have been sent together. */
  const ask = (query: CompiledQuery, name: string, arrays: boolean) =>
    new Promise<PgResult>((resolve, reject) => {
      // After the poll phase: every request whose bytes arrived in this turn has asked by then.
      if (waiting.length === 0) setImmediate(flush);
      waiting.push({ query, name, arrays, resolve, reject });
    });

  const batched = (query: CompiledQuery, name: string | undefined): name is string => name !== undefined && isRead(query.sql);
  return {
    db,
    async execute<O>(query: CompiledQuery<O>, name?: string): Promise<QueryResult<O>> {
      return batched(query, name) ? asKyselyResult<O>(await ask(query, name, false)) : plain.execute(query, name);
    },
    async executeArrays(query: CompiledQuery, name?: string): Promise<unknown[][]> {
      return batched(query, name) ? ((await ask(query, name, true)).rows as unknown[][]) : plain.executeArrays!(query, name);
    },
  };
}
