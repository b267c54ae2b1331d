/**
 * A transaction's runner on PostgreSQL, which saves round trips: each is a socket write and a
 * wake-up on both sides, the largest cost Souk and the server have per statement. What needs no
 * answer of its own travels with the next statement, as one simple-protocol message:
 * - BEGIN and the writer's lock go with the transaction's first statement;
 * - writes whose result nobody reads (the event log, the outboxes: `later`) go with the next
 *   statement or with COMMIT.
 * A statement joins such a message only when it can be written out as text (`inlined`); otherwise
 * what waits goes just before it, and it goes alone, with its parameters, as usual. Statements
 * reach the server in the order they were asked for, so a read sees every write before it.
 */
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { PoolClient, QueryResult as PgResult } from 'pg';
import { asKyselyResult, postgresRunner } from './runner.js';
import type { QueryRunner } from '../common/prepared.js';
import type { Database } from '../common/schema.js';

/** A parameter as SQL text: an integer, null, or (with `quote`) a string without NUL; else undefined. */
function literalOf(p: unknown, quote: ((s: string) => string) | undefined): string | undefined {
  if (p === null) return 'null';
  if (typeof p === 'number') return Number.isSafeInteger(p) ? (p < 0 ? `(${p})` : String(p)) : undefined;
  // The protocol ends a query's text at NUL: such a string keeps its parameter.
  if (typeof p === 'string' && quote && !p.includes('\u0000')) return quote(p);
  return undefined;
}

/**
 * A query's SQL cut at its parameters: text, then for each `$n` the parameter's index and the text
 * after it. Undefined when the SQL holds what a cut could misread: a dollar quote, an E'' string, a
 * comment, a second statement. Quoted text and identifiers are kept whole ('' and "" inside).
 */
interface Template {
  texts: string[];
  slots: number[];
}

function cut(sql: string): Template | undefined {
  if (/\bE'/i.test(sql)) return undefined;
  const texts: string[] = [];
  const slots: number[] = [];
  let from = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      i = closing(sql, i, c);
      if (i < 0) return undefined;
    } else if (c === '$') {
      const digits = /^\$(\d+)/.exec(sql.slice(i, i + 12));
      if (!digits) return undefined;
      texts.push(sql.slice(from, i));
      slots.push(Number(digits[1]) - 1);
      i += digits[0].length;
      from = i;
      continue;
    } else if (c === ';' || sql.startsWith('--', i) || sql.startsWith('/*', i)) return undefined;
    i++;
  }
  texts.push(sql.slice(from));
  return { texts, slots };
}

/** The index just past the quote that closes the one at `open` (a doubled quote is inside), or -1. */
function closing(sql: string, open: number, quote: string): number {
  for (let j = open + 1; ; j += 2) {
    j = sql.indexOf(quote, j);
    if (j < 0) return -1;
    if (sql[j + 1] !== quote) return j + 1;
  }
}

/** Cut templates by SQL text; the request path has a few dozen, other queries are many and kept less. */
const templates = new Map<string, Template | undefined>();
const TEMPLATES_KEPT = 1000;

function templateOf(sql: string): Template | undefined {
  if (templates.has(sql)) return templates.get(sql);
  const template = cut(sql);
  if (templates.size >= TEMPLATES_KEPT) templates.clear();
  templates.set(sql, template);
  return template;
}

/**
 * The query with its parameters written into its text, where that is safe: each parameter an
 * integer, null, or a string quoted by `quote` (pg's escapeLiteral), and the SQL one statement
 * that a cut at its `$n` reads right (cut). Otherwise undefined.
 */
export function inlined(query: CompiledQuery, quote?: (s: string) => string): string | undefined {
  const template = templateOf(query.sql);
  if (!template) return undefined;
  let text = template.texts[0]!;
  for (let k = 0; k < template.slots.length; k++) {
    const literal = literalOf(query.parameters[template.slots[k]!], quote);
    if (literal === undefined) return undefined;
    text += literal + template.texts[k + 1]!;
  }
  return text;
}

export class TransactionRunner implements QueryRunner {
  readonly db: Kysely<Database>;
  private readonly inner: QueryRunner;
  /** Sent with the first statement, then settled: the transaction has begun. */
  private begun: Promise<unknown> | undefined;
  private ready = false;
  /** Written-out writes waiting for the next statement or COMMIT. */
  private waiting: string[] = [];

  constructor(
    db: Kysely<Database>,
    private readonly client: PoolClient,
    named: boolean,
    private readonly begin: string,
    /** Told of the results of BEGIN's message: [begin, lock?, first statement?]. */
    private readonly onBegun: (results: PgResult[]) => void,
  ) {
    this.db = db;
    this.inner = postgresRunner(db, client, named);
  }

  /** Whether BEGIN was sent (then COMMIT or ROLLBACK must follow). */
  get started(): boolean {
    return this.begun !== undefined;
  }

  async execute<O>(query: CompiledQuery<O>, name?: string): Promise<QueryResult<O>> {
    const joined = await this.sendWithWaiting(query, false);
    return joined ? asKyselyResult<O>(joined) : this.inner.execute(query, name);
  }

  async executeArrays(query: CompiledQuery, name?: string): Promise<unknown[][]> {
    const joined = await this.sendWithWaiting(query, true);
    return joined ? (joined.rows as unknown[][]) : this.inner.executeArrays!(query, name);
  }

  /** Holds a write whose result nobody reads for the next message; false when it must go now. */
  later(query: CompiledQuery): boolean {
    if (!this.ready) return false;
    const text = inlined(query, this.quote);
    if (text === undefined) return false;
    this.waiting.push(text);
    return true;
  }

  /** COMMIT, with the writes still waiting. Nothing when the transaction never began. */
  async commit(): Promise<void> {
    if (!this.started) return;
    await this.begun;
    await this.client.query(this.take(['commit']));
  }

  /** Drops what waits: after a failure nothing more is sent but ROLLBACK. */
  discard(): void {
    this.waiting = [];
  }

  private readonly quote = (s: string) => this.client.escapeLiteral(s);

  /** `statements` after the waiting writes, as one message's text; the queue is emptied. */
  private take(statements: string[]): string {
    const text = [...this.waiting, ...statements].join('; ');
    this.waiting = [];
    return text;
  }

  /**
   * Sends what waits (BEGIN, writes) with the query when it can be written out, and returns its
   * result; else sends what waits alone and returns undefined: the query is still to run.
   */
  private async sendWithWaiting(query: CompiledQuery, arrays: boolean): Promise<PgResult | undefined> {
    if (!this.begun) return this.first(query, arrays);
    if (!this.ready) await this.begun;
    if (this.waiting.length === 0) return undefined;
    const text = inlined(query, this.quote);
    const results = await this.simple(this.take(text === undefined ? [] : [text]), arrays);
    return text === undefined ? undefined : results.at(-1);
  }

  private async first(query: CompiledQuery, arrays: boolean): Promise<PgResult | undefined> {
    const text = inlined(query, this.quote);
    const sent = this.simple(text === undefined ? this.begin : `${this.begin}; ${text}`, arrays);
    this.begun = sent;
    const results = await sent;
    this.ready = true;
    this.onBegun(results);
    return text === undefined ? undefined : results.at(-1);
  }

  /** One simple-protocol message; pg answers a message of several statements with one result each. */
  private async simple(text: string, arrays: boolean): Promise<PgResult[]> {
    const results = (await (arrays ? this.client.query({ text, rowMode: 'array' }) : this.client.query(text))) as unknown as
      PgResult | PgResult[];
    return Array.isArray(results) ? results : [results];
  }
}

/**
 * `run` for code whose writes nobody reads the result of (the event recorder): on a transaction's
 * runner each write waits for the next message and is answered at once with no rows.
 */
export function writesLater(run: QueryRunner): QueryRunner {
  if (!(run instanceof TransactionRunner)) return run;
  const none = { rows: [] };
  return {
    db: run.db,
    execute: async <O>(query: CompiledQuery<O>, name?: string) => (run.later(query) ? (none as QueryResult<O>) : run.execute(query, name)),
    executeArrays: async (query, name) => (run.later(query) ? [] : run.executeArrays(query, name)),
  };
}
