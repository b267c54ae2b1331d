/**
 * A Pusher backlog (docs/pusher.md, "Delivery"): events that wait in the outbox go, once Pusher
 * takes them again, in batch_events requests of at most 10 events, each event once and each
 * channel's in the order they were recorded, though a claim's batches are in flight at once; and
 * two instances sharing the outbox (PostgreSQL) send each event once.
 * On SQLite, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { TEST_POSTGRES_URL } from '../helpers/database.js';
import { pusherServer, type PusherTestServer } from '../helpers/pusher-server.js';
import { until } from '../helpers/until.js';

const MESSAGE = '/wp-json/rtcl/v1/my/chat/message';

const outbox = (t: TestSouk) => t.souk.store.pusherOutbox!;
const all = async (t: TestSouk) => outbox(t).list({ limit: 1000 });

/** `count` messages, alternately from each participant, while Pusher refuses everything (401: kept as failed at once). */
async function refused(t: TestSouk, server: PusherTestServer, count: number): Promise<void> {
  server.fault({ kind: 'status', status: 401 });
  const conId: number = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json().con_id;
  for (let i = 1; i <= count; i++) {
    const from = i % 2 === 0 ? USERS.amina : USERS.youssef;
    const reply = await t.post(MESSAGE, { con_id: conId, listing_id: LISTINGS.bike, text: `message ${i}` }, t.auth(from));
    assert.equal(reply.statusCode, 200, reply.body);
  }
  await until(async () => (await all(t)).every((d) => d.status === 'failed'), 20_000);
}

/** Pusher takes events again, and every failed one is due now, together. */
async function release(t: TestSouk, server: PusherTestServer): Promise<void> {
  server.fault({ kind: 'none' });
  await outbox(t).retry([], Date.now());
}

/** The message.new ids on the channel, in the order Pusher took them. */
const newMessages = (server: PusherTestServer, channel: string) =>
  server
    .on(channel)
    .filter((e) => e.name === 'message.new')
    .map((e) => JSON.parse(e.data).message.message_id as number);

/** The start's 2 conversation.new, then a message.new and a conversation.unread per message, each once, in batches of at most 10. */
function assertOnce(server: PusherTestServer, messages: number) {
  assert.equal(server.events.length, 2 + 2 * (messages + 1));
  assert.ok(server.requests.every((r) => r.path.endsWith('/batch_events') && r.events <= 10));
  const ids = [...newMessages(server, 'chat-user-1'), ...newMessages(server, 'chat-user-2')];
  assert.equal(ids.length, messages + 1);
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(server.events.filter((e) => e.name === 'conversation.unread').length, messages + 1);
}

describe('Pusher: a backlog', () => {
  it('goes in batches of at most 10, each event once, each channel in its order', async () => {
    const server = await pusherServer();
    const t = await startTestSouk({ PUSHER_URL: server.url, PUSHER_CLUSTER: 'mt1' });
    await refused(t, server, 40);
    await release(t, server);
    await until(async () => (await all(t)).every((d) => d.status === 'sent'), 20_000);
    // 84 events of one claim: more than one batch.
    assertOnce(server, 40);
    assert.ok(server.requests.length >= 9);
    for (const channel of ['chat-user-1', 'chat-user-2']) {
      const ids = newMessages(server, channel);
      assert.deepEqual(
        ids,
        [...ids].sort((x, y) => x - y),
        `${channel}'s messages in the order they were sent`,
      );
    }
  });

  it('two instances on one database send each event once', { skip: TEST_POSTGRES_URL ? false : 'needs PostgreSQL' }, async () => {
    const server = await pusherServer();
    const env = { PUSHER_URL: server.url, PUSHER_CLUSTER: 'mt1' };
    const a = await startTestSouk(env);
    await refused(a, server, 150);
    const b = await startTestSouk({ ...env, DATABASE_URL: a.database.url }, null);
    // More than one claim's rows, due at once: both instances claim.
    await release(a, server);
    await until(async () => (await all(a)).every((d) => d.status === 'sent'), 30_000);
    assertOnce(server, 150);
    await b.close();
  });
});
