/**
 * Two Souk processes on one WordPress database (the MySQL store): concurrent writes by one user,
 * spread over both, lose nothing. The plugin's tables have no unique key to lean on: each write
 * locks its writer's wp_users row (SELECT ... FOR UPDATE) in its transaction, so the favourites
 * meta is read and written by one toggle at a time, and one conversation start at a time decides
 * whether the open conversation exists.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseFavourites } from '../../../src/store/mysql/repositories.js';
import { startServerProcess, type ServerProcess } from '../../helpers/processes.js';
import { PATHS, startTestSouk, type TestSouk } from '../../helpers/souk.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';
import type { WordpressDatabase } from '../../helpers/wordpress.js';

const JWT_SECRET = 'souk-concurrency-test-secret-0123456789';
const ALICE = SITE_USERS.alice;
const IPHONE = SITE_LISTINGS.iphone;
const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';

async function twoInstances(): Promise<{ t: TestSouk; site: WordpressDatabase; servers: ServerProcess[] }> {
  const site = await wordpressDatabase('wordpress-seeded.sql');
  // The in-process Souk creates Souk's own tables; the two processes serve the site.
  const t = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET }, null);
  const env = { DATABASE_URL: site.url, JWT_SECRET };
  const servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  return { t, site, servers };
}

function post(server: ServerProcess, path: string, headers: Record<string, string>, body: unknown) {
  return fetch(server.base + path, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('two instances on one WordPress database', { skip }, () => {
  it('200 concurrent toggles by one user end in the state their count implies, in the plugin form', async (ctx) => {
    const { t, site, servers } = await twoInstances();
    const headers = { authorization: `Bearer ${t.token(ALICE, { login: SITE_LOGINS[ALICE] })}`, 'x-api-key': t.apiKey };
    const started = performance.now();
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) => post(servers[i % 2]!, PATHS.toggle, headers, { listing_id: IPHONE })),
    );
    const ms = performance.now() - started;
    assert.deepEqual(
      replies.map((r) => r.status),
      Array(200).fill(200),
    );
    const lists = (await Promise.all(replies.map((r) => r.json()))) as number[][];
    assert.equal(lists.filter((l) => l.includes(IPHONE)).length, 100, 'serialised toggles alternate add and remove');
    const meta = await site.query<{ meta_value: string }>(
      "select meta_value from wp_usermeta where user_id = ? and meta_key = 'rtcl_favourites'",
      [ALICE],
    );
    assert.equal(meta.length, 1, 'one rtcl_favourites row');
    assert.equal(meta[0]!.meta_value, 'a:0:{}', 'an even number of toggles leaves the listing out');
    // One more, through the in-process instance: the plugin's re-indexed form.
    assert.equal((await t.toggle(ALICE, { listing_id: IPHONE })).statusCode, 200);
    const [one] = await site.query<{ meta_value: string }>(
      "select meta_value from wp_usermeta where user_id = ? and meta_key = 'rtcl_favourites'",
      [ALICE],
    );
    assert.equal(one!.meta_value, 'a:1:{i:0;i:8;}');
    assert.deepEqual(parseFavourites(one!.meta_value), [IPHONE]);
    ctx.diagnostic(`200 toggles over 2 instances in ${Math.round(ms)} ms`);
  });

  it('50 concurrent conversation starts by one buyer for one listing give one conversation holding every message', async (ctx) => {
    const { t, site, servers } = await twoInstances();
    const headers = { authorization: `Bearer ${t.token(ALICE, { login: SITE_LOGINS[ALICE] })}`, 'x-api-key': t.apiKey };
    const started = performance.now();
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post(servers[i % 2]!, PATHS.start, headers, { listing_id: IPHONE, text: `message ${i}` })),
    );
    const ms = performance.now() - started;
    assert.deepEqual(
      replies.map((r) => r.status),
      Array(50).fill(200),
    );
    const bodies = (await Promise.all(replies.map((r) => r.json()))) as { con_id: number; newMessage: { message_id: number } }[];
    assert.equal(new Set(bodies.map((b) => b.con_id)).size, 1);
    assert.equal(new Set(bodies.map((b) => b.newMessage.message_id)).size, 50);
    const conversations = await site.query<{ con_id: number; last_message_id: number }>(
      'select con_id, last_message_id from wp_rtcl_conversations',
    );
    assert.equal(conversations.length, 1);
    const messages = await site.query<{ message: string; message_id: number }>(
      'select message, message_id from wp_rtcl_conversation_messages where con_id = ? order by message_id',
      [conversations[0]!.con_id],
    );
    assert.deepEqual(messages.map((m) => m.message).sort(), Array.from({ length: 50 }, (_, i) => `message ${i}`).sort());
    assert.equal(conversations[0]!.last_message_id, messages.at(-1)!.message_id, 'the conversation points at its newest message');
    ctx.diagnostic(`50 starts over 2 instances in ${Math.round(ms)} ms`);
  });
});
