/**
 * The abuse limits (docs/safety.md): MESSAGES_PER_MINUTE and NEW_CONVERSATIONS_PER_HOUR
 * per sender, 429 shape B with Retry-After; a retried temp_id, a refused or failed request count
 * nothing; at the limit of new conversations a start may still write in an open one; an account
 * younger than a day gets a quarter of each; instances count together through Redis. On SQLite,
 * and on PostgreSQL with TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseImportDocument } from '../../src/cli/import-document.js';
import { importCatalog } from '../../src/domain/catalog.js';
import { LISTINGS, marketplace, USERS } from '../helpers/fixtures.js';
import { REDIS_URL, redisPrefix, redisSkip } from '../helpers/redis.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';

const API = '/wp-json/rtcl/v1';
const tooMany = (error_message: string) => ({ status: 'error', error: 'TOO_MANY_REQUESTS', code: '429', error_message });
const MESSAGES = tooMany('Too many messages in the last minute. Retry after the number of seconds in the Retry-After header.');
const CONVERSATIONS = tooMany('Too many new conversations in the last hour. Retry after the number of seconds in the Retry-After header.');

const send = (t: TestSouk, user: number, body: Record<string, unknown>) => t.post(`${API}/my/chat/message`, body, t.auth(user));

describe('abuse limits', () => {
  it('messages per minute and new conversations per hour, per sender', async () => {
    const t = await startTestSouk({ MESSAGES_PER_MINUTE: '3', NEW_CONVERSATIONS_PER_HOUR: '2' });

    // Amina: a start and two answers are three messages; a retry of a stored temp_id and refused ones count nothing.
    let res = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello', temp_id: 1 });
    assert.equal(res.statusCode, 200, res.body);
    const conId = res.json().con_id;
    res = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello', temp_id: 1 });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await send(t, USERS.amina, { con_id: conId, text: '' })).statusCode, 400);
    assert.equal((await send(t, USERS.amina, { con_id: 99999, text: 'x' })).statusCode, 403);
    res = await send(t, USERS.amina, { con_id: conId, text: 'Two', temp_id: 2 });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await send(t, USERS.amina, { con_id: conId, text: 'Two', temp_id: 2 })).statusCode, 200);
    assert.equal((await send(t, USERS.amina, { con_id: conId, text: 'Three' })).statusCode, 200);
    res = await send(t, USERS.amina, { con_id: conId, text: 'Four' });
    assert.deepEqual([res.statusCode, res.json()], [429, MESSAGES]);
    const retryAfter = Number(res.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, String(res.headers['retry-after']));
    // Nothing was stored, and the other participant is not held up.
    assert.equal(await t.souk.store.repos.messages.countOf(conId, 0), 3);
    assert.equal((await send(t, USERS.youssef, { con_id: conId, text: 'Yes' })).statusCode, 200);

    // Sara: two new conversations; a third is refused, and costs no message; her open one still takes one.
    assert.equal((await t.start(USERS.sara, { listing_id: LISTINGS.bike, text: 'a' })).statusCode, 200);
    assert.equal((await t.start(USERS.sara, { listing_id: LISTINGS.aminasOwn, text: 'b' })).statusCode, 200);
    res = await t.start(USERS.sara, { listing_id: LISTINGS.draft, text: 'c' });
    assert.deepEqual([res.statusCode, res.json()], [429, CONVERSATIONS]);
    assert.ok(Number(res.headers['retry-after']) > 60 && Number(res.headers['retry-after']) <= 3600);
    res = await t.start(USERS.sara, { listing_id: LISTINGS.bike, text: 'still there?' });
    assert.equal(res.statusCode, 200, res.body);
    res = await t.start(USERS.sara, { listing_id: LISTINGS.bike, text: 'hello?' });
    assert.deepEqual([res.statusCode, res.json()], [429, MESSAGES]);
  });

  it('gives an account younger than a day a quarter of each limit (at least 1), and an older or undated one the whole', async () => {
    const hourAgo = Date.now() - 3_600_000;
    const dated = (doc: ReturnType<typeof marketplace>, ages: Record<number, number>) => ({
      ...doc,
      users: doc.users!.map((u) => (ages[u.id] === undefined ? u : { ...u, registered: new Date(ages[u.id]!).toISOString() })),
    });
    const doc = dated(marketplace(), { [USERS.amina]: hourAgo, [USERS.sara]: Date.now() - 2 * 86_400_000 });
    const t = await startTestSouk({ MESSAGES_PER_MINUTE: '8', NEW_CONVERSATIONS_PER_HOUR: '4' }, doc);

    // Amina, an hour old: 2 messages a minute and 1 new conversation an hour.
    let res = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' });
    assert.equal(res.statusCode, 200, res.body);
    const conId = res.json().con_id;
    res = await t.start(USERS.amina, { listing_id: LISTINGS.draft, text: 'And this?' });
    assert.deepEqual([res.statusCode, res.json()], [429, CONVERSATIONS]);
    assert.equal((await send(t, USERS.amina, { con_id: conId, text: 'Two' })).statusCode, 200);
    res = await send(t, USERS.amina, { con_id: conId, text: 'Three' });
    assert.deepEqual([res.statusCode, res.json()], [429, MESSAGES]);
    // Youssef, undated, and Sara, two days old: more than a quarter.
    for (const text of ['a', 'b', 'c']) assert.equal((await send(t, USERS.youssef, { con_id: conId, text })).statusCode, 200);
    assert.equal((await t.start(USERS.sara, { listing_id: LISTINGS.bike, text: 'a' })).statusCode, 200);
    assert.equal((await t.start(USERS.sara, { listing_id: LISTINGS.aminasOwn, text: 'b' })).statusCode, 200);

    // An import that does not say keeps the stored date; one with an impossible date is refused, naming it.
    const again = parseImportDocument(marketplace());
    assert.ok(again.ok);
    assert.ok((await importCatalog(t.souk.store, again.catalog)).ok);
    assert.equal((await t.souk.store.repos.users.findById(USERS.amina))?.registeredAt, hourAgo);
    const impossible = dated(marketplace(), { [USERS.youssef]: hourAgo });
    impossible.users![1]!.registered = '2026-02-30T10:00:00Z';
    assert.deepEqual(parseImportDocument(impossible), {
      ok: false,
      path: 'users[1].registered',
      problem: 'not a date and time that exists',
    });
  });

  it('0 turns each limit off', async () => {
    const t = await startTestSouk({ MESSAGES_PER_MINUTE: '0', NEW_CONVERSATIONS_PER_HOUR: '0' });
    const conId = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json().con_id;
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => send(t, USERS.amina, { con_id: conId, text: `m${i}` })));
    assert.ok(replies.every((r) => r.statusCode === 200));
  });

  it('concurrent messages cannot pass the limit together', async () => {
    const t = await startTestSouk({ MESSAGES_PER_MINUTE: '5' });
    const conId = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json().con_id;
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => send(t, USERS.amina, { con_id: conId, text: `m${i}` })));
    assert.deepEqual(replies.map((r) => r.statusCode).sort(), [200, 200, 200, 200, 429, 429, 429, 429, 429, 429]);
    assert.equal(await t.souk.store.repos.messages.countOf(conId, 0), 5);
  });
});

describe('abuse limits shared through Redis', { skip: redisSkip }, () => {
  it('two instances count one sender together', async () => {
    const env = { MESSAGES_PER_MINUTE: '3', REDIS_URL, RATE_LIMIT_REDIS_PREFIX: redisPrefix() };
    const a = await startTestSouk(env);
    const b = await startTestSouk(env);
    const onA = (await a.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json().con_id;
    const onB = (await b.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json().con_id;
    assert.equal((await send(a, USERS.amina, { con_id: onA, text: 'two' })).statusCode, 200);
    assert.equal((await send(b, USERS.amina, { con_id: onB, text: 'four' })).statusCode, 429);
    assert.equal((await send(a, USERS.amina, { con_id: onA, text: 'four' })).statusCode, 429);
  });
});
