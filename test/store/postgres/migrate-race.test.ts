/**
 * Migrations on a PostgreSQL database shared with others: Kysely's migrator lists the tables of every
 * schema, so another user dropping a schema at that moment must not fail Souk's start-up; and
 * instances that start together on one schema take turns (an advisory lock keyed by the schema).
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { freshDatabase, TEST_POSTGRES_URL } from '../../helpers/database.js';
import { openStore } from '../../../src/store/index.js';

const OPTIONS = { poolSize: 2, statementTimeoutMs: 5000, connectTimeoutMs: 5000 };

/** Creates and drops schemas holding a table, over and over, until stopped. */
function churnSchemas(url: string): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      while (running) {
        const schema = `souk_churn_${randomBytes(4).toString('hex')}`;
        await client.query(`create schema ${schema}; create table ${schema}.t (a int, b int, c int)`);
        await client.query(`drop schema ${schema} cascade`);
      }
    } finally {
      await client.end();
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}

it('migrates while other schemas of the database are created and dropped', { skip: !TEST_POSTGRES_URL && 'PostgreSQL only' }, async (t) => {
  const churners = [churnSchemas(TEST_POSTGRES_URL!), churnSchemas(TEST_POSTGRES_URL!)];
  t.after(() => Promise.all(churners.map((c) => c.stop())));
  for (let i = 0; i < 15; i++) {
    const database = await freshDatabase();
    const store = openStore(database.url, OPTIONS);
    try {
      assert.ok((await store.migrate()).length > 0);
    } finally {
      await store.close();
      await database.drop();
    }
  }
});

it(
  'migrates one schema once when instances start together, each waiting for the other',
  { skip: !TEST_POSTGRES_URL && 'PostgreSQL only' },
  async (t) => {
    const database = await freshDatabase();
    t.after(() => database.drop());
    const stores = [openStore(database.url, OPTIONS), openStore(database.url, OPTIONS), openStore(database.url, OPTIONS)];
    t.after(() => Promise.all(stores.map((s) => s.close())));
    const applied = await Promise.all(stores.map((s) => s.migrate()));
    // One of them applied every migration; the others found nothing left to do.
    assert.deepEqual(applied.map((names) => names.length > 0).sort(), [false, false, true]);
    assert.deepEqual(await stores[1]!.migrate(), []);
  },
);
