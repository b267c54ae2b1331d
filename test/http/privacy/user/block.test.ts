/**
 * privacy/user/block (docs/safety.md, "Blocking"): the routes in the plugin's shapes and texts,
 * with Souk's fixes, and what a block does to the chat: start and send refused both ways, the
 * blocker's chat list (both reply generations) without the blocked user's conversations, reads
 * still allowed, nothing the blocked user does recorded for the blocker (events, hence webhooks
 * and pushes). On SQLite, and on PostgreSQL when TEST_DATABASE_URL names one.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { LISTINGS, USERS } from '../../../helpers/fixtures.js';
import { marketplace } from '../../../helpers/fixtures.js';
import { startTestSouk, type TestSouk } from '../../../helpers/souk.js';

const API = '/wp-json/rtcl/v1';
const BLOCK = `${API}/privacy/user/block`;
const { amina, youssef, sara, disabled } = USERS;

const json = (res: LightMyRequestResponse) => JSON.parse(res.body) as any;

function expectReply(res: LightMyRequestResponse, status: number, body: unknown, label = ''): void {
  assert.equal(res.statusCode, status, `${label} ${res.body}`);
  assert.equal(res.body, JSON.stringify(body), label);
}

const BLOCKED = { code: 'FORBIDDEN', message: 'You cannot send messages to this user.' };
const notFound = (message: string) => ({ code: 'rtcl_rest_validation_error', message, data: { status: 404 } });
const bad = (error_message: string) => ({ status: 'error', error: 'BADREQUEST', code: '400', error_message });

// Their display names, never their logins (Fix): Sara was imported without one.
const SARA = { id: sara, name: '', email: '' };
const AMINA = { id: amina, name: 'Amina K.', email: '' };

function call(
  t: TestSouk,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  as: number,
  body?: unknown,
  form?: Record<string, string>,
) {
  const headers: Record<string, string> = { ...t.auth(as) };
  let payload: string | undefined;
  if (form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = new URLSearchParams(form).toString();
  } else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  return t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
}

const block = (t: TestSouk, as: number, userId: number | string) => call(t, 'POST', BLOCK, as, { user_id: userId });
const unblock = (t: TestSouk, as: number, userId: number | string) => call(t, 'DELETE', `${BLOCK}?user_id=${userId}`, as);
const start = (t: TestSouk, as: number, listingId: number, text = 'Hello') =>
  call(t, 'POST', `${API}/my/chat/conversation`, as, { listing_id: listingId, text });
const send = (t: TestSouk, as: number, conId: number, text = 'Still there?') =>
  call(t, 'POST', `${API}/my/chat/message`, as, { con_id: conId, text });
const chatList = (t: TestSouk, as: number) => call(t, 'GET', `${API}/my/chat`, as);

async function eventsOf(t: TestSouk, userId: number): Promise<number> {
  const rows = await t.souk.store.db.selectFrom('events').select('seq').where('user_id', '=', userId).execute();
  return rows.length;
}

describe('privacy/user/block', () => {
  it('lists, adds and removes as the plugin does, with its texts, and the fixes', async () => {
    const t = await startTestSouk();
    expectReply(await call(t, 'GET', BLOCK, youssef), 200, [], 'nobody blocked');
    expectReply(await block(t, youssef, sara), 200, [SARA], 'JSON body');
    // Blocking twice keeps one entry (Fix); a form body and the query string are read too (N2).
    expectReply(await call(t, 'POST', BLOCK, youssef, undefined, { user_id: String(sara) }), 200, [SARA], 'form body, twice');
    expectReply(await call(t, 'POST', `${BLOCK}?user_id=${amina}`, youssef), 200, [SARA, AMINA], 'query string, in the order blocked');
    expectReply(await call(t, 'GET', BLOCK, youssef), 200, [SARA, AMINA]);
    expectReply(await call(t, 'GET', BLOCK, sara), 200, [], "another user's list");
    // A disabled user can be blocked: they exist.
    expectReply(await block(t, sara, disabled), 200, [{ id: disabled, name: 'Disabled', email: '' }]);

    expectReply(await block(t, youssef, youssef), 400, bad('You cannot block yourself.'), 'yourself (Fix)');
    expectReply(await block(t, youssef, 999), 404, notFound('User not found.'), 'unknown user');
    expectReply(await block(t, youssef, 'abc'), 400, bad('user_id is required and must be a positive integer.'));
    expectReply(await call(t, 'POST', BLOCK, youssef, {}), 400, bad('user_id is required and must be a positive integer.'));
    expectReply(await unblock(t, youssef, 999), 404, notFound('User not found.'));
    expectReply(await unblock(t, sara, youssef), 404, notFound('User not exist at blocked list.'));
    expectReply(await call(t, 'DELETE', BLOCK, youssef), 400, bad('user_id is required and must be a positive integer.'));
    expectReply(await unblock(t, youssef, sara), 200, [AMINA], 'after removing');
    expectReply(await call(t, 'DELETE', BLOCK, youssef, { user_id: amina }), 200, [], 'user_id in a JSON body');

    const anonymous = await t.app.inject({ method: 'GET', url: BLOCK, headers: { 'x-api-key': t.apiKey } });
    assert.equal(anonymous.statusCode, 401, anonymous.body);
  });

  it('answers display names, never logins; refuses staff as unknown users; and limits block changes per hour', async () => {
    const document = marketplace();
    const staff = 5;
    document.users!.push({ id: staff, login: 'site-admin', name: 'Site team', email: 'team@example.com', is_admin: true });
    const t = await startTestSouk({ BLOCK_CHANGES_PER_HOUR: '6' }, document);
    const base = await t.listen();
    const fetchBlock = async (method: 'POST' | 'DELETE', as: number, userId: number) => {
      const reply = await fetch(`${base}${BLOCK}${method === 'DELETE' ? `?user_id=${userId}` : ''}`, {
        method,
        headers: { ...t.auth(as), ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
        ...(method === 'POST' ? { body: JSON.stringify({ user_id: userId }) } : {}),
      });
      return { status: reply.status, body: await reply.text(), retryAfter: reply.headers.get('retry-after') };
    };
    let res = await fetchBlock('POST', sara, amina);
    assert.deepEqual([res.status, JSON.parse(res.body)], [200, [{ id: amina, name: 'Amina K.', email: '' }]]);
    // The bytes too: the keys in the spec's order (neighbours.md), the id an integer.
    assert.equal(res.body, `[{"id":${amina},"name":"Amina K.","email":""}]`);
    assert.doesNotMatch(res.body, /"amina"/);
    // Staff: as an unknown user, so that nobody learns who is staff, and nobody shuts the moderators out.
    res = await fetchBlock('POST', sara, staff);
    assert.deepEqual([res.status, JSON.parse(res.body)], [404, notFound('User not found.')]);
    assert.deepEqual(await t.souk.store.repos.blocks.blockedUserIds(sara), [amina]);
    // Six changes an hour, refused ones too (an answer says whether an id exists): the seventh is 429.
    for (const [method, id, status] of [
      ['DELETE', amina, 200],
      ['POST', 999, 404],
      ['POST', youssef, 200],
      ['DELETE', 998, 404],
    ] as const) {
      assert.equal((await fetchBlock(method, sara, id)).status, status);
    }
    res = await fetchBlock('POST', sara, amina);
    assert.equal(res.status, 429, res.body);
    assert.equal(
      JSON.parse(res.body).error_message,
      'Too many changes to your block lists in the last hour. Retry after the number of seconds in the Retry-After header.',
    );
    assert.ok(Number(res.retryAfter) > 0);
    assert.deepEqual(await t.souk.store.repos.blocks.blockedUserIds(sara), [youssef]);
    // Another user has a budget of their own; reading the list is not a change.
    assert.equal((await fetchBlock('POST', amina, sara)).status, 200);
    assert.equal((await call(t, 'GET', BLOCK, sara)).statusCode, 200);
  });

  it('closes the chat both ways, hides the conversation from the blocker only, and keeps reads', async () => {
    const t = await startTestSouk({ WEBHOOK_URLS: 'https://hooks.example/souk', WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
    const started = await start(t, sara, LISTINGS.bike, 'Is the bike available?');
    assert.equal(started.statusCode, 200, started.body);
    const conId = Number(json(started).con_id);
    const other = json(await start(t, amina, LISTINGS.bike, 'Hi'));
    const reply = await send(t, youssef, conId, 'Yes it is');
    assert.equal(reply.statusCode, 200, reply.body);
    const conIds = async (as: number) => (json(await chatList(t, as)).data as any[]).map((c) => Number(c.con_id));
    assert.deepEqual(await conIds(youssef), [conId, Number(other.con_id)]);

    expectReply(await block(t, youssef, sara), 200, [SARA]);
    const youssefEvents = await eventsOf(t, youssef);
    const outbox = await t.souk.store.db.selectFrom('webhook_outbox').select('id').where('user_id', '=', youssef).execute();

    // Both ways, the same answer: the blocked side learns only that the conversation is closed.
    expectReply(await send(t, sara, conId), 403, BLOCKED, 'the blocked user sends');
    expectReply(await send(t, youssef, conId), 403, BLOCKED, 'the blocker sends');
    expectReply(await start(t, sara, LISTINGS.bike), 403, BLOCKED, 'the blocked user starts');
    // A block is between two users: the blocker still talks with everyone else.
    const third = await start(t, youssef, LISTINGS.aminasOwn);
    assert.equal(third.statusCode, 200, third.body);

    // Reads still work, for both.
    assert.equal((await call(t, 'GET', `${API}/my/chat/conversation?con_id=${conId}`, sara)).statusCode, 200);
    assert.equal((await call(t, 'GET', `${API}/my/chat/conversation?con_id=${conId}`, youssef)).statusCode, 200);
    // The blocker's list leaves the conversation out; the blocked user's is unchanged.
    assert.deepEqual(await conIds(youssef), [Number(json(third).con_id), Number(other.con_id)]);
    assert.equal(json(await chatList(t, youssef)).pagination.total, 2);
    assert.ok((await conIds(sara)).includes(conId));

    // What the blocked user does reaches the blocker by no event (nor webhook, nor push: they come from the events).
    const lastMessage = json(await call(t, 'GET', `${API}/my/chat/conversation?con_id=${conId}`, sara)).messages[0].message_id;
    assert.equal((await call(t, 'PUT', `${API}/my/chat/message?con_id=${conId}&message_id=${lastMessage}`, sara, {})).statusCode, 200);
    assert.equal((await call(t, 'DELETE', `${API}/my/chat/conversation?con_id=${conId}`, sara)).statusCode, 200);
    assert.equal(await eventsOf(t, youssef), youssefEvents);
    const outboxAfter = await t.souk.store.db.selectFrom('webhook_outbox').select('id').where('user_id', '=', youssef).execute();
    assert.equal(outboxAfter.length, outbox.length);

    // Unblocking brings the conversation back to the blocker's list, and the chat opens again.
    expectReply(await unblock(t, youssef, sara), 200, []);
    assert.deepEqual(await conIds(youssef), [Number(json(third).con_id), conId, Number(other.con_id)]);
    assert.equal((await send(t, sara, conId)).statusCode, 403, 'sara left the conversation: closed for her');
    assert.equal((await send(t, youssef, conId)).statusCode, 403);
  });

  it('works the same when the blocked user blocked first, and in the classic list', async () => {
    const t = await startTestSouk();
    const conId = Number(json(await start(t, sara, LISTINGS.bike)).con_id);
    // Sara (the buyer) blocks the seller: the seller cannot answer, and cannot be reached.
    expectReply(await block(t, sara, youssef), 200, [{ id: youssef, name: 'Youssef B.', email: '' }]);
    expectReply(await send(t, youssef, conId), 403, BLOCKED);
    expectReply(await send(t, sara, conId), 403, BLOCKED);
    expectReply(await start(t, sara, LISTINGS.bike), 403, BLOCKED, 'a listing of a user the caller blocked');

    const classic = await startTestSouk({ DATABASE_URL: t.database.url, CHAT_REPLY_FORMAT: 'classic' }, null);
    const classicList = async (as: number) => json(await chatList(classic, as)) as any;
    const ids = (body: any): number[] => (Array.isArray(body) ? body : (body.data ?? [])).map((c: any) => Number(c.con_id));
    assert.deepEqual(ids(await classicList(sara)), [], 'classic: the blocker does not see it');
    assert.deepEqual(ids(await classicList(youssef)), [conId], "classic: the blocked user's list is unchanged");
    expectReply(await unblock(classic, sara, youssef), 200, []);
    assert.deepEqual(ids(await classicList(sara)), [conId], 'classic: back after unblocking');
    assert.equal((await send(t, youssef, conId)).statusCode, 200);
  });
});
