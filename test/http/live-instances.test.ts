/**
 * Typing and presence across two instances on one PostgreSQL database (issue 50): a typing event
 * posted on one instance reaches the stream held by the other (the event signals' NOTIFY channel,
 * no row written), and a block answered on one stops typing through the other at once; who is
 * online, and who hid it, is answered alike by both (the store's presence).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_POSTGRES_URL } from '../helpers/database.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { SseClient } from '../helpers/sse.js';
import { until } from '../helpers/until.js';

const API = '/wp-json/rtcl/v1';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function twoInstances(): Promise<{ a: TestSouk; b: TestSouk }> {
  const a = await startTestSouk();
  // The second instance on the first one's database (its fixture already imported).
  const b = await startTestSouk({ DATABASE_URL: a.database.url }, null);
  return { a, b };
}

const presence = (t: TestSouk, userId: number, ids: string) =>
  t.app.inject({ method: 'GET', url: `${API}/my/chat/presence?user_ids=${ids}`, headers: t.auth(userId) });

describe('typing and presence across instances', { skip: TEST_POSTGRES_URL ? false : 'needs TEST_DATABASE_URL=postgres://...' }, () => {
  it('a typing event posted on one instance reaches the stream held by the other; a block on either stops it', async () => {
    const { a, b } = await twoInstances();
    const base = await b.listen();
    const conId = (await a.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json().con_id;
    const client = await SseClient.open(`${base}${API}/my/events`, b.auth(USERS.youssef));
    assert.equal(client.status, 200);
    await until(() => b.souk.streams!.isStreaming(USERS.youssef));
    // Both instances listen on the channel before the first event.
    await sleep(300);
    assert.equal((await a.post(`${API}/my/chat/typing`, { con_id: conId }, a.auth(USERS.amina))).statusCode, 204);
    const [typing] = await client.take(1);
    assert.equal(typing!.event, 'conversation.typing');
    assert.equal(typing!.id, undefined);
    assert.deepEqual(JSON.parse(typing!.data), { conversation_id: conId, user_id: USERS.amina });
    // Nothing of it was written: the log has no event for it.
    assert.equal(await a.souk.store.eventLog!.lastSeq(USERS.youssef), 3);

    // Youssef blocks Amina through b: a forgets at once what it kept of the two.
    assert.equal((await b.post(`${API}/privacy/user/block`, { user_id: USERS.amina }, b.auth(USERS.youssef))).statusCode, 200);
    await sleep(3100);
    assert.equal((await a.post(`${API}/my/chat/typing`, { con_id: conId }, a.auth(USERS.amina))).statusCode, 204);
    await client.nothingWithin(500);
    client.close();
  });

  it('answers presence alike on both: seen on one, online on the other; hidden through one, hidden on the other', async () => {
    const { a, b } = await twoInstances();
    const conId = (await a.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json().con_id;
    // Youssef's one request, on b.
    assert.equal((await b.post(`${API}/my/chat/message`, { con_id: conId, text: 'Hi' }, b.auth(USERS.youssef))).statusCode, 200);
    await until(async () => (await a.souk.store.presence!.onlineUntil(USERS.youssef)) !== undefined);
    const [seen] = (await presence(a, USERS.amina, `${USERS.youssef}`)).json();
    assert.equal(seen.online, true);
    assert.match(seen.last_seen, /^\d{4}-\d\d-\d\d \d\d:\d[05]:00$/);
    assert.deepEqual((await presence(b, USERS.amina, `${USERS.youssef}`)).json(), [seen]);

    const hidden = await b.app.inject({
      method: 'PUT',
      url: `${API}/my/notifications`,
      payload: { show_presence: false },
      headers: b.auth(USERS.youssef),
    });
    assert.equal(hidden.statusCode, 200);
    assert.deepEqual((await presence(a, USERS.amina, `${USERS.youssef}`)).json(), [
      { user_id: USERS.youssef, online: false, last_seen: null },
    ]);
  });
});
