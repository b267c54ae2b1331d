/**
 * Two Souk processes on one PostgreSQL database: concurrent requests spread over both
 * keep every rule (D5, D6) and none gets a 5xx.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_POSTGRES_URL } from '../helpers/database.js';
import { startServerProcess, type ServerProcess } from '../helpers/processes.js';
import { startTestSouk, PATHS, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';

async function twoInstances(): Promise<{ t: TestSouk; servers: ServerProcess[] }> {
  // The in-process Souk prepares the schema and the fixture; the two processes serve it.
  const t = await startTestSouk();
  const env = { DATABASE_URL: t.database.url, SITE_URL: t.config.siteUrl };
  const servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  return { t, servers };
}

function post(server: ServerProcess, path: string, headers: Record<string, string>, body: unknown) {
  return fetch(server.base + path, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('two instances on one PostgreSQL', { skip: TEST_POSTGRES_URL ? false : 'needs TEST_DATABASE_URL=postgres://...' }, () => {
  it('200 concurrent toggles spread over both end in the state their count implies', async (ctx) => {
    const { t, servers } = await twoInstances();
    const headers = t.auth(USERS.amina);
    const started = performance.now();
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) => post(servers[i % 2]!, PATHS.toggle, headers, { listing_id: LISTINGS.bike })),
    );
    const ms = performance.now() - started;
    assert.deepEqual(
      replies.map((r) => r.status),
      Array(200).fill(200),
    );
    const lists = (await Promise.all(replies.map((r) => r.json()))) as number[][];
    assert.equal(lists.filter((l) => l.includes(LISTINGS.bike)).length, 100, 'serialised toggles alternate add and remove');
    const rows = await t.souk.store.db.selectFrom('favourites').selectAll().execute();
    assert.equal(rows.length, 0, 'an even number of toggles leaves the listing out');
    ctx.diagnostic(`200 toggles over 2 instances in ${Math.round(ms)} ms`);
  });

  it('50 concurrent conversation starts spread over both yield one conversation holding every message', async (ctx) => {
    const { t, servers } = await twoInstances();
    const headers = t.auth(USERS.sara);
    const started = performance.now();
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        post(servers[i % 2]!, PATHS.start, headers, { listing_id: LISTINGS.bike, text: `message ${i}` }),
      ),
    );
    const ms = performance.now() - started;
    assert.deepEqual(
      replies.map((r) => r.status),
      Array(50).fill(200),
    );
    const bodies = (await Promise.all(replies.map((r) => r.json()))) as { con_id: number; newMessage: { message_id: number } }[];
    assert.equal(new Set(bodies.map((b) => b.con_id)).size, 1);
    assert.equal(new Set(bodies.map((b) => b.newMessage.message_id)).size, 50);
    const conversations = await t.souk.store.db.selectFrom('conversations').selectAll().execute();
    assert.equal(conversations.length, 1);
    const messages = await t.souk.store.db.selectFrom('messages').select('message').where('con_id', '=', conversations[0]!.id).execute();
    assert.deepEqual(messages.map((m) => m.message).sort(), Array.from({ length: 50 }, (_, i) => `message ${i}`).sort());
    ctx.diagnostic(`50 starts over 2 instances in ${Math.round(ms)} ms`);
  });
});
