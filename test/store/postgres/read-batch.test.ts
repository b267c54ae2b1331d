/**
 * The reads of one turn outside units of work go to PostgreSQL as one message (src/store/postgres/
 * read-batch.ts): each gets its own rows, in the form it asked for; a read the connection has not
 * prepared yet runs alone and is prepared; a failed one fails alone; writes and locking reads are
 * never joined. One pooled connection, whose messages the test records as they leave.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import { batchedReads } from '../../../src/store/postgres/read-batch.js';
import { postgresRunner } from '../../../src/store/postgres/runner.js';
import type { QueryRunner } from '../../../src/store/common/prepared.js';
import type { Database } from '../../../src/store/common/schema.js';
import { freshDatabase, TEST_POSTGRES_URL, type TestDatabase } from '../../helpers/database.js';

const byId = CompiledQuery.raw('select id, v from t where id = $1', [1]);
const at = (id: number, q = byId) => CompiledQuery.raw(q.sql, [id]);
const ratio = (d: number) => CompiledQuery.raw('select 10 / $1 as r', [d]);

describe('the reads of one turn, together', { skip: TEST_POSTGRES_URL ? false : 'PostgreSQL only' }, () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let db: Kysely<Database>;
  let reads: QueryRunner;
  /** What each message carried: a simple-protocol text, or the name of a statement sent alone. */
  let sent: string[] = [];

  before(async () => {
    database = await freshDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 1 });
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as { query: unknown }).query = (config: string | { text: string; name?: string }, ...rest: unknown[]) => {
        sent.push(typeof config === 'string' ? config : (config.name ?? config.text));
        return query(config, ...rest);
      };
    });
    await pool.query("create table t (id int primary key, v text); insert into t values (1, 'one'), (2, 'two'), (3, 'it''s')");
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    reads = batchedReads(db, pool, postgresRunner(db, pool, true));
  });

  after(async () => {
    await db.destroy();
    await database.drop();
  });

  /** Three reads asked in one turn: objects, arrays, and a division by `d`. */
  const oneTurn = (d: number) =>
    Promise.allSettled([
      reads.execute(at(1), 'souk_t_by_id'),
      reads.executeArrays!(at(3), 'souk_t_by_id'),
      reads.execute(ratio(d), 'souk_t_ratio'),
    ]);

  it('runs a read alone while its statement is new to the connection, which prepares it, then joins them: objects in one message, arrays in another', async () => {
    sent = [];
    const first = await oneTurn(5);
    // The second read of a statement the first one has just prepared is written out already.
    assert.deepEqual(sent, ['souk_t_by_id', 'souk_t_ratio', 'execute souk_t_by_id(3)']);
    sent = [];
    const second = await oneTurn(5);
    assert.deepEqual(sent, ['execute souk_t_by_id(1); execute souk_t_ratio(5)', 'execute souk_t_by_id(3)']);
    assert.deepEqual(second, first);
    assert.deepEqual(
      second.map((r) => r.status === 'fulfilled' && (Array.isArray(r.value) ? r.value : r.value.rows)),
      [[{ id: 1, v: 'one' }], [[3, "it's"]], [{ r: 2 }]],
    );
  });

  it('answers each read of a message that failed on its own: only the failed one fails', async () => {
    sent = [];
    const [one, three, ratio] = await oneTurn(0);
    assert.deepEqual(sent.slice(0, 2), ['execute souk_t_by_id(1); execute souk_t_ratio(0)', 'execute souk_t_by_id(3)']);
    assert.deepEqual(one.status === 'fulfilled' && one.value, { rows: [{ id: 1, v: 'one' }], numAffectedRows: undefined });
    assert.equal(three.status, 'fulfilled');
    assert.equal(ratio.status, 'rejected');
    assert.match(String((ratio as PromiseRejectedResult).reason), /division by zero/);
  });

  it("joins a read whose parameter is an array's text, as the chat list's listings are read", async () => {
    const some = (ids: string) => CompiledQuery.raw('select id from t where id = any(cast($1 as int[])) order by id', [ids]);
    const turn = () => Promise.all([reads.execute(some('{1,3}'), 'souk_t_some'), reads.execute(at(2), 'souk_t_by_id')]);
    await turn();
    sent = [];
    const [joined, two] = await turn();
    assert.deepEqual(sent, ['execute souk_t_some($souk${1,3}$souk$); execute souk_t_by_id(2)']);
    assert.deepEqual(joined.rows, [{ id: 1 }, { id: 3 }]);
    assert.deepEqual(two.rows, [{ id: 2, v: 'two' }]);
  });

  it('never joins a write, a locking read or a statement without a name', async () => {
    const write = CompiledQuery.raw('with up as (update t set v = v where id = $1 returning id) select id from up', [2]);
    const locking = CompiledQuery.raw('select id from t where id = $1 for no key update', [2]);
    for (let round = 0; round < 2; round++) {
      sent = [];
      await Promise.all([
        reads.execute(write, 'souk_t_write'),
        reads.execute(locking, 'souk_t_locking'),
        reads.execute(at(2)),
        reads.execute(at(1), 'souk_t_by_id'),
      ]);
      assert.ok(
        sent.every((text) => !/souk_t_(write|locking)\(/.test(text)),
        sent.join(' | '),
      );
    }
  });
});
