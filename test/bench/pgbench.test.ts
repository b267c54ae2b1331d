/** The bench's pgbench row (bench/pgbench.ts) runs PostgreSQL's pgbench on the test server and reads its summary. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { runPgbench } from '../../bench/pgbench.js';
import { TEST_POSTGRES_URL } from '../helpers/database.js';

test(
  'pgbench -N runs in a schema of its own, reports its transactions, and leaves no schema behind',
  { skip: !TEST_POSTGRES_URL },
  async () => {
    const result = await runPgbench(TEST_POSTGRES_URL!, 1, 1);
    assert.ok(result.transactions > 0, `transactions: ${result.transactions}`);
    assert.ok(result.tps > 0 && result.latencyAverageMs > 0, JSON.stringify(result));
    assert.equal(result.failed, 0);
    const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    try {
      const { rows } = await client.query("select nspname from pg_namespace where nspname like 'souk_pgbench_%'");
      assert.deepEqual(rows, []);
    } finally {
      await client.end();
    }
  },
);
