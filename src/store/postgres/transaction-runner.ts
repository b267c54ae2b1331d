/**
 * A transaction's runner on PostgreSQL, which saves round trips: each is a socket write and a
 * wake-up on both sides, the largest cost Souk and the server have per statement. What needs no
 * answer of its own travels with the next statement, as one simple-protocol message:
 * - BEGIN and the writer's lock go with the transaction's first statement, and with those asked for
 *   in the same job;
 * - writes whose result nobody reads (the event log, the outboxes: `later`) go with the next
 *   statement or with COMMIT;
 * - a unit run alone (UnitOfWork.alone) sends the lock and its one statement without BEGIN: one
 *   message is one transaction, committed as it ends, so there is no COMMIT to wait for.
 * A statement joins such a message as an EXECUTE of its named statement once that is prepared on
 * the connection (executeText): the server then parses a line and plans nothing, as for the
 * statement sent alone (its SQL written out in full was planned anew each time, and cost the server
 * more than the round trips saved). Otherwise what waits goes just before it, and it goes alone, with
 * its parameters, the plain path. Statements asked for together (the use case awaits them with
 * Promise.all: reads that depend on nothing but what it already holds) are gathered until the
 * current job's promise callbacks have run and go as one such message too. Statements reach the
 * server in the order they were asked for, so a read sees every write before it. With
 * DB_PREPARED_STATEMENTS=false or DB_JOIN_STATEMENTS=false nothing is joined but BEGIN and the lock
 * (as text).
 */
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { PoolClient, QueryResult as PgResult } from 'pg';
import { asKyselyResult, postgresRunner } from './runner.js';
import type { QueryRunner } from '../common/prepared.js';
import type { Database } from '../common/schema.js';

/** A parameter as SQL text: an integer, null, or a string without NUL quoted by `quote`; else undefined. */
function literalOf(p: unknown, quote: (s: string) => string): string | undefined {
  if (p === null) return 'null';
  if (typeof p === 'number') return Number.isSafeInteger(p) ? String(p) : undefined;
  // The protocol ends a query's text at NUL: such a string keeps its parameter.
  if (typeof p === 'string' && !p.includes('\u0000')) return quote(p);
  return undefined;
}

/**
 * A string as an SQL literal. Dollar-quoted: no character inside needs escaping, so the text goes
 * as it is, without a pass over it (pg's escapeLiteral builds its answer a character at a time: a
 * few µs per KB, for every payload). The tag ends the literal at its first `$souk$`: a string
 * holding `$souk` anywhere (the only way one could meet the closing tag early) is escaped by pg.
 */
export function quoted(s: string, pg: { escapeLiteral(s: string): string }): string {
  return s.includes('$souk') ? pg.escapeLiteral(s) : `$souk$${s}$souk$`;
}

/**
 * The named statement `name`, already prepared on the connection, run with the query's parameters
 * written out (integers, nulls, strings quoted by `quote`, pg's escapeLiteral): `execute name(...)`,
 * the name being one of Souk's own (`souk_...`, prepared.ts).
 * The server parses only that and runs the statement's cached plan, as for the statement sent alone.
 * Undefined when a parameter cannot be written out.
 */
export function executeText(name: string, parameters: readonly unknown[], quote: (s: string) => string): string | undefined {
  if (!/^[a-z0-9_]+$/.test(name)) return undefined;
  const literals: string[] = [];
  for (const p of parameters) {
    const literal = literalOf(p, quote);
    if (literal === undefined) return undefined;
    literals.push(literal);
  }
  return literals.length === 0 ? `execute ${name}` : `execute ${name}(${literals.join(', ')})`;
}

/** The writer's row lock (transaction.ts): a named statement, and its text for a connection that has not prepared it. */
export interface WriterLock {
  name: string;
  query: CompiledQuery;
  text: string;
}

/**
 * Runs `fn` once the current job's promise callbacks have run, and before any I/O is waited for:
 * a process.nextTick asked for from a microtask. Asked for from a nextTick callback, a nextTick
 * alone would run before the promise callbacks.
 */
function afterThisJob(fn: () => void): void {
  queueMicrotask(() => process.nextTick(fn));
}

/** The named statements each connection has prepared, as far as this runner and the read batch (read-batch.ts) have seen them. */
const preparedOn = new WeakMap<PoolClient, Set<string>>();

/** The named statements prepared on this connection, as far as Souk has seen them; shared by every user of the connection. */
export function preparedStatementsOf(client: PoolClient): Set<string> {
  let prepared = preparedOn.get(client);
  if (!prepared) preparedOn.set(client, (prepared = new Set()));
  return prepared;
}

export type SimpleConfig = string | { text: string; values?: unknown[]; name?: string; rowMode?: 'array' };

/**
 * The connection's queries, each sent once the one before it has been answered. pg would queue
 * them itself in the same order, but warns on every process that doing so is deprecated (and
 * stops in pg 9): the statements of a Promise.all that go the plain path are asked at once.
 */
export function oneAtATime(client: PoolClient): (config: SimpleConfig) => Promise<PgResult> {
  let last: Promise<unknown> = Promise.resolve();
  return (config) => {
    const answered = last.then(() => client.query(config as string) as unknown as Promise<PgResult>);
    last = answered.catch(() => undefined);
    return answered;
  };
}

/**
 * A statement waiting for the others asked for with it: written out (executeText), or undefined
 * when it cannot be (it then goes alone, the plain path).
 */
interface Gathered<Text extends string | undefined = string> {
  text: Text;
  arrays: boolean;
  /** Its result; undefined when it is to go alone, the plain path. */
  settle: (result: PgResult | undefined) => void;
  fail: (error: unknown) => void;
}

export class TransactionRunner implements QueryRunner {
  readonly db: Kysely<Database>;
  private readonly inner: QueryRunner;
  /** Every query of the transaction goes through it (oneAtATime). */
  private readonly send: (config: SimpleConfig) => Promise<PgResult>;
  /** The named statements prepared on this client; none when statements go unnamed. */
  private readonly prepared: Set<string> | undefined;
  /** Sent with the first statement, then settled: the transaction has begun. */
  private begun: Promise<unknown> | undefined;
  private ready = false;
  /** Written-out writes waiting for the next statement or COMMIT. */
  private waiting: string[] = [];
  /** Statements asked for since the last message, to go together (gather). */
  private gathered: Gathered[] = [];
  /** The statements asked for in the job that began the transaction, until BEGIN's message leaves. */
  private opening: Gathered<string | undefined>[] | undefined;
  /** With `alone`: the unit's one statement went with the lock as a transaction of its own, now ended. */
  private ended = false;
  private readonly alone: boolean;

  constructor(
    db: Kysely<Database>,
    private readonly client: PoolClient,
    /**
     * `join` only with `named` (postgres/index.ts): an EXECUTE needs a statement by its name.
     * `alone`: the unit asks for one statement and nothing after its answer (UnitOfWork.alone).
     */
    { named, join, alone = false }: { named: boolean; join: boolean; alone?: boolean },
    private readonly lock: WriterLock | undefined,
    /** Told of the lock's result, once the first message is answered. */
    private readonly onLocked: (lock: PgResult | undefined) => void,
  ) {
    this.db = db;
    this.alone = alone;
    this.send = oneAtATime(client);
    this.inner = postgresRunner(db, { query: this.send }, named);
    if (join) {
      this.prepared = preparedStatementsOf(client);
    }
  }

  /** Whether BEGIN was sent (then COMMIT or ROLLBACK must follow). */
  get started(): boolean {
    return this.begun !== undefined;
  }

  async execute<O>(query: CompiledQuery<O>, name?: string): Promise<QueryResult<O>> {
    const joined = await this.sendWithWaiting(query, name, false);
    if (joined) return asKyselyResult<O>(joined);
    const result = await this.inner.execute(query, name);
    if (name !== undefined) this.prepared?.add(name);
    return result;
  }

  async executeArrays(query: CompiledQuery, name?: string): Promise<unknown[][]> {
    const joined = await this.sendWithWaiting(query, name, true);
    if (joined) return joined.rows as unknown[][];
    const rows = await this.inner.executeArrays!(query, name);
    if (name !== undefined) this.prepared?.add(name);
    return rows;
  }

  /** Holds a write whose result nobody reads for the next message; false when it must go now. */
  later(query: CompiledQuery, name: string | undefined): boolean {
    this.refuseAfterEnd();
    if (!this.ready) return false;
    const text = this.written(query, name);
    if (text === undefined) return false;
    this.waiting.push(text);
    return true;
  }

  /** COMMIT, with the writes still waiting. Nothing when the transaction never began, or ended with its one statement. */
  async commit(): Promise<void> {
    if (!this.started) return;
    await this.begun;
    if (this.ended) return;
    await this.send(this.take(['commit']));
  }

  /**
   * ROLLBACK, once BEGIN's message has left (a job that failed before it did leaves it still to
   * send: a ROLLBACK sent first would let BEGIN leave a transaction open on the connection). What
   * waits is dropped: after a failure nothing more is sent. Nothing when the transaction never began.
   */
  async rollback(): Promise<void> {
    this.waiting = [];
    if (!this.started) return;
    await this.begun;
    if (!this.ended) await this.send('rollback');
  }

  /** A unit run alone that asks for more than its one statement: a fault in the code, never sent. */
  private refuseAfterEnd(): void {
    if (this.ended) throw new Error('a unit of work run alone asked for a statement after its one statement');
  }

  private readonly quote = (s: string) => quoted(s, this.client);

  /** The query as an EXECUTE of its statement, when that is prepared on this client (executeText). */
  private written(query: CompiledQuery, name: string | undefined): string | undefined {
    return name !== undefined && this.prepared?.has(name) ? executeText(name, query.parameters, this.quote) : undefined;
  }

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
  private async sendWithWaiting(query: CompiledQuery, name: string | undefined, arrays: boolean): Promise<PgResult | undefined> {
    this.refuseAfterEnd();
    if (!this.begun || this.opening) return this.open(query, name, arrays);
    if (!this.ready) await this.begun;
    const text = this.written(query, name);
    if (text !== undefined) return this.gather(text, arrays);
    if (this.waiting.length > 0) await this.simple(this.take([]), arrays);
    return undefined;
  }

  /**
   * The statement's result, once sent with the others asked for in the same job and with what
   * waits; undefined when it is alone with nothing waiting, so it goes the plain path. The message
   * leaves once the promise callbacks of the current job have run (afterThisJob): every statement
   * of a Promise.all has been asked for by then, and no I/O has been waited for.
   */
  private gather(text: string, arrays: boolean): Promise<PgResult | undefined> {
    return new Promise((settle, fail) => {
      if (this.gathered.push({ text, arrays, settle, fail }) === 1) afterThisJob(this.sendGathered);
    });
  }

  private readonly sendGathered = (): void => {
    const gathered = this.gathered;
    this.gathered = [];
    if (gathered.length === 1 && this.waiting.length === 0) return gathered[0]!.settle(undefined);
    // One message per run of statements that want their rows in the same form, in the order asked.
    let from = 0;
    while (from < gathered.length) {
      let to = from + 1;
      while (to < gathered.length && gathered[to]!.arrays === gathered[from]!.arrays) to++;
      const run = gathered.slice(from, to);
      this.simple(this.take(run.map((g) => g.text)), run[0]!.arrays).then(
        (results) => run.forEach((g, i) => g.settle(results[results.length - run.length + i])),
        (error: unknown) => run.forEach((g) => g.fail(error)),
      );
      from = to;
    }
  };

  /**
   * BEGIN and the lock, with the statements asked for in the same job as the first, sent once its
   * promise callbacks have run (afterThisJob). Those written out go with BEGIN, up to the first
   * that cannot be or wants its rows in the other form; from there on each goes alone, in the
   * order asked (on a new connection, until prepared).
   */
  private open(query: CompiledQuery, name: string | undefined, arrays: boolean): Promise<PgResult | undefined> {
    return new Promise((settle, fail) => {
      const statement = { text: this.written(query, name), arrays, settle, fail };
      if (this.opening) return void this.opening.push(statement);
      this.opening = [statement];
      // Begun from now on (COMMIT or ROLLBACK must follow); settled, never failed, once BEGIN's message is answered.
      this.begun = new Promise<void>((done) => afterThisJob(() => void this.sendOpening().finally(done)));
    });
  }

  private async sendOpening(): Promise<void> {
    const opening = this.opening!;
    this.opening = undefined;
    const texts: string[] = [];
    for (const { text, arrays } of opening) {
      if (text === undefined || arrays !== opening[0]!.arrays) break;
      texts.push(text);
    }
    const lock = this.lock && (this.written(this.lock.query, this.lock.name) ?? this.lock.text);
    // Alone and written out: the lock and the statement, one message without BEGIN, are one
    // transaction, committed when the message ends (rolled back on an error). Else the plain way.
    const alone = this.alone && opening.length === 1 && texts.length === 1;
    this.ended = alone;
    let results: PgResult[];
    try {
      results = await this.simple(
        [alone ? undefined : 'begin', lock, ...texts].filter((t) => t !== undefined).join('; '),
        opening[0]!.arrays,
      );
      this.ready = true;
      this.onLocked(lock === undefined ? undefined : results[results.length - texts.length - 1]);
      // The lock went as text: prepared now (it locks the row again, which this transaction holds, or
      // none once ended: then it only prepares), an EXECUTE next time.
      if (this.lock && this.prepared && !this.prepared.has(this.lock.name)) {
        await this.inner.execute(this.lock.query, this.lock.name);
        this.prepared.add(this.lock.name);
      }
    } catch (error) {
      for (const statement of opening) statement.fail(error);
      return;
    }
    // The rest go the plain path, one after the other in the order asked.
    opening.forEach((statement, i) => statement.settle(i < texts.length ? results[results.length - texts.length + i] : undefined));
  }

  private simple(text: string, arrays: boolean): Promise<PgResult[]> {
    return simpleMessage(this.send, text, arrays);
  }
}

/** One simple-protocol message's results: pg answers a message of several statements with one result each. */
export async function simpleMessage(send: (config: SimpleConfig) => Promise<PgResult>, text: string, arrays: boolean): Promise<PgResult[]> {
  const results = (await send(arrays ? { text, rowMode: 'array' } : text)) as unknown as PgResult | PgResult[];
  return Array.isArray(results) ? results : [results];
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
    execute: async <O>(query: CompiledQuery<O>, name?: string) =>
      run.later(query, name) ? (none as QueryResult<O>) : run.execute(query, name),
    executeArrays: async (query, name) => (run.later(query, name) ? [] : run.executeArrays(query, name)),
  };
}
