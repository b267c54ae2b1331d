/**
 * GET my/chat/presence and PUT my/notifications `show_presence` (issue 50): whether the users the
 * caller chats with are online, last seen to 5 minutes; nobody else, nobody across a block, no
 * disabled user; a user who hides it shows offline, never seen, to everyone.
 * On SQLite, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';

const API = '/wp-json/rtcl/v1';
const NOTIFICATIONS = `${API}/my/notifications`;

const presence = (t: TestSouk, userId: number, ids: string) =>
  t.app.inject({ method: 'GET', url: `${API}/my/chat/presence?user_ids=${ids}`, headers: t.auth(userId) });

const put = (t: TestSouk, userId: number, body: unknown) =>
  t.app.inject({ method: 'PUT', url: NOTIFICATIONS, payload: body as object, headers: t.auth(userId) });

/** `YYYY-MM-DD HH:MM:SS` (the test site is UTC) as epoch ms. */
const parsed = (time: string) => Date.parse(`${time.replace(' ', 'T')}Z`);

describe('GET my/chat/presence', () => {
  it('answers for the users who share a conversation with the caller only, in the order asked, last seen to 5 minutes', async () => {
    const t = await startTestSouk();
    const conId = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json().con_id;
    // Sara chats with Amina but never made a request: never seen.
    await t.souk.store.transaction((repos) => repos.conversations.create(LISTINGS.aminasOwn, USERS.sara, USERS.amina, Date.now()));
    const before = Date.now();
    assert.equal((await t.post(`${API}/my/chat/message`, { con_id: conId, text: 'Hi' }, t.auth(USERS.youssef))).statusCode, 200);
    const reply = await presence(t, USERS.amina, `${USERS.sara},${USERS.youssef},${USERS.amina},999,${USERS.youssef}`);
    assert.equal(reply.statusCode, 200, reply.body);
    const [sara, youssef, ...rest] = reply.json();
    assert.deepEqual(rest, []);
    assert.deepEqual(sara, { user_id: USERS.sara, online: false, last_seen: null });
    assert.equal(youssef.user_id, USERS.youssef);
    assert.equal(youssef.online, true);
    const seen = parsed(youssef.last_seen);
    assert.equal(seen % 300_000, 0, youssef.last_seen);
    assert.ok(seen <= Date.now() && seen > before - 300_000, youssef.last_seen);
    // Youssef does not chat with Sara: she is left out of his answer.
    assert.deepEqual(
      (await presence(t, USERS.youssef, `${USERS.sara},${USERS.amina}`)).json().map((e: { user_id: number }) => e.user_id),
      [USERS.amina],
    );
  });

  it('shows a user who hid their presence offline and never seen, to everyone; GET my/notifications says so', async () => {
    const t = await startTestSouk();
    await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' });
    assert.equal((await presence(t, USERS.youssef, `${USERS.amina}`)).json()[0].online, true);
    const hidden = await put(t, USERS.amina, { show_presence: false });
    assert.equal(hidden.statusCode, 200, hidden.body);
    assert.deepEqual(hidden.json(), { email: true, show_presence: false });
    assert.deepEqual((await t.app.inject({ url: NOTIFICATIONS, headers: t.auth(USERS.amina) })).json(), {
      email: true,
      show_presence: false,
    });
    assert.deepEqual((await presence(t, USERS.youssef, `${USERS.amina}`)).json(), [
      { user_id: USERS.amina, online: false, last_seen: null },
    ]);
    // The choice of mail is its own.
    assert.deepEqual((await put(t, USERS.amina, { email: false })).json(), { email: false, show_presence: false });
    assert.deepEqual((await put(t, USERS.amina, { show_presence: 'true' })).json(), { email: false, show_presence: true });
    assert.equal((await presence(t, USERS.youssef, `${USERS.amina}`)).json()[0].online, true);
    const bad = await put(t, USERS.amina, { show_presence: 'maybe' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error_message, 'show_presence must be true or false.');
    assert.equal((await put(t, USERS.amina, {})).json().error_message, 'email is required and must be true or false.');
  });

  it('leaves out a user with a block between the two, either way, and a disabled user', async () => {
    const t = await startTestSouk();
    await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' });
    await t.souk.store.transaction((repos) => repos.conversations.create(LISTINGS.aminasOwn, USERS.disabled, USERS.amina, Date.now()));
    assert.deepEqual((await presence(t, USERS.amina, `${USERS.disabled}`)).json(), []);
    assert.equal((await t.post(`${API}/privacy/user/block`, { user_id: USERS.amina }, t.auth(USERS.youssef))).statusCode, 200);
    assert.deepEqual((await presence(t, USERS.amina, `${USERS.youssef}`)).json(), []);
    assert.deepEqual((await presence(t, USERS.youssef, `${USERS.amina}`)).json(), []);
  });

  it('refuses a missing or malformed user_ids (400 B) and a caller without a token', async () => {
    const t = await startTestSouk();
    const message = 'user_ids is required: a comma-separated list of at most 100 positive integers.';
    for (const ids of ['', 'a', '1,,2', '0', '-1', '1.5', Array.from({ length: 101 }, (_, i) => i + 1).join(',')]) {
      const reply = await presence(t, USERS.amina, ids);
      assert.equal(reply.statusCode, 400, ids);
      assert.deepEqual(reply.json(), { status: 'error', error: 'BADREQUEST', code: '400', error_message: message });
    }
    const none = await t.app.inject({ url: `${API}/my/chat/presence`, headers: t.auth(USERS.amina) });
    assert.equal(none.statusCode, 400);
    const anonymous = await t.app.inject({ url: `${API}/my/chat/presence?user_ids=1`, headers: { 'x-api-key': t.apiKey } });
    assert.equal(anonymous.statusCode, 401);
  });
});
