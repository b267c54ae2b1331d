/**
 * Rate limits per API key and per user (docs/hardening.md): 429 shape B TOO_MANY_REQUESTS with
 * Retry-After; counted after the token verified (key) and after the user is known (user), so
 * D4's earlier checks answer first. (Failed authentications per address: auth-throttle.test.ts.) Per process without REDIS_URL; shared through Redis with it.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestSouk, PATHS, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { RedisCounter } from '../../src/auth/counters.js';
import { REDIS_URL, redisPrefix as prefix, redisSkip } from '../helpers/redis.js';

const TOO_MANY_KEY = {
  status: 'error',
  error: 'TOO_MANY_REQUESTS',
  code: '429',
  error_message: 'Too many requests with this API key. Retry after the number of seconds in the Retry-After header.',
};
const TOO_MANY_USER = {
  status: 'error',
  error: 'TOO_MANY_REQUESTS',
  code: '429',
  error_message: 'Too many requests for this user. Retry after the number of seconds in the Retry-After header.',
};

function assertRetryAfter(value: unknown, windowS: number): void {
  assert.equal(typeof value, 'string');
  assert.match(value as string, /^[1-9][0-9]*$/);
  assert.ok(Number(value) >= 1 && Number(value) <= windowS, `Retry-After ${String(value)}`);
}

const toggleBody = { listing_id: LISTINGS.bike };

describe('rate limit per user', () => {
  it('the request over RATE_LIMIT_PER_USER gets 429 with Retry-After; other users are not affected', async () => {
    const t = await startTestSouk({ RATE_LIMIT_PER_USER: '3', RATE_LIMIT_WINDOW_MS: '60000' });
    for (let i = 0; i < 3; i++) assert.equal((await t.toggle(USERS.amina, toggleBody)).statusCode, 200);
    const limited = await t.toggle(USERS.amina, toggleBody);
    assert.equal(limited.statusCode, 429);
    assert.deepEqual(limited.json(), TOO_MANY_USER);
    assertRetryAfter(limited.headers['retry-after'], 60);
    // Both operations share the user's limit; the limited request stored nothing.
    const start = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'hi' });
    assert.equal(start.statusCode, 429);
    assert.deepEqual(start.json(), TOO_MANY_USER);
    const rows = await t.souk.store.db.selectFrom('favourites').selectAll().execute();
    assert.equal(rows.length, 1, 'three toggles were served, the fourth was not');
    assert.deepEqual(await t.souk.store.db.selectFrom('messages').selectAll().execute(), []);
    assert.equal((await t.toggle(USERS.sara, toggleBody)).statusCode, 200);
  });

  it('serves the user again once the window has passed', async () => {
    const t = await startTestSouk({ RATE_LIMIT_PER_USER: '2', RATE_LIMIT_WINDOW_MS: '1500' });
    await t.toggle(USERS.amina, toggleBody);
    await t.toggle(USERS.amina, toggleBody);
    const limited = await t.toggle(USERS.amina, toggleBody);
    assert.equal(limited.statusCode, 429);
    assertRetryAfter(limited.headers['retry-after'], 2);
    await new Promise((r) => setTimeout(r, Number(limited.headers['retry-after']) * 1000 + 100));
    assert.equal((await t.toggle(USERS.amina, toggleBody)).statusCode, 200);
  });

  it('comes after D4 steps 1-4 and before body validation', async () => {
    const t = await startTestSouk({ RATE_LIMIT_PER_USER: '1' });
    assert.equal((await t.toggle(USERS.amina, toggleBody)).statusCode, 200);
    // Over the limit: an invalid body is not even looked at.
    const invalid = await t.toggle(USERS.amina, { listing_id: 'nope' });
    assert.equal(invalid.statusCode, 429);
    // Earlier checks answer first: missing key, wrong key, bad token.
    const noKey = await t.post(PATHS.toggle, toggleBody, { authorization: t.auth(USERS.amina).authorization });
    assert.equal(noKey.json().error, 'MISSING_X_API_KEY_HEADER');
    const badToken = await t.post(PATHS.toggle, toggleBody, { 'x-api-key': t.apiKey, authorization: 'Bearer a.b.c' });
    assert.equal(badToken.json().error, 'SEGMENT_FAULT');
    await t.souk.store.settings.set('rest_api', 'false');
    await t.souk.settings.refresh();
    const disabled = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'hi' });
    assert.deepEqual(disabled.json(), { code: 'DENIED_REST_API', message: 'Denied api call', data: { status: 403 } });
  });

  it('RATE_LIMIT_PER_USER=0 turns the limit off', async () => {
    const t = await startTestSouk({ RATE_LIMIT_PER_USER: '0' });
    const replies = await Promise.all(Array.from({ length: 30 }, () => t.toggle(USERS.amina, toggleBody)));
    assert.deepEqual(
      replies.map((r) => r.statusCode),
      Array(30).fill(200),
    );
  });
});

describe('rate limit per API key', () => {
  it('counts every request with the accepted key and a verified token, whoever the user; bad tokens are not counted', async () => {
    // The failure throttle is off so that only the key's limit can answer 429 here.
    const t = await startTestSouk({ RATE_LIMIT_PER_KEY: '3', RATE_LIMIT_PER_USER: '0', RATE_LIMIT_AUTH_FAILURES: '0' });
    assert.equal((await t.toggle(USERS.amina, toggleBody)).statusCode, 200);
    assert.equal((await t.toggle(USERS.sara, toggleBody)).statusCode, 200);
    // Bad tokens with the right key, and wrong keys, do not use up the key's budget.
    for (let i = 0; i < 10; i++) {
      const badToken = await t.post(PATHS.toggle, toggleBody, { 'x-api-key': t.apiKey, authorization: 'Bearer x.y.z' });
      assert.equal(badToken.statusCode, 401);
      const wrong = await t.post(PATHS.toggle, toggleBody, { 'x-api-key': 'wrong-key', authorization: t.auth(USERS.amina).authorization });
      assert.equal(wrong.json().error, 'INVALID_API_KEY');
    }
    assert.equal((await t.toggle(USERS.youssef, toggleBody)).statusCode, 200);
    const limited = await t.toggle(USERS.youssef, toggleBody);
    assert.equal(limited.statusCode, 429);
    assert.deepEqual(limited.json(), TOO_MANY_KEY);
    assertRetryAfter(limited.headers['retry-after'], 60);
    // Over the key's limit, a bad token still gets its own answer: only a verified token is counted.
    const badToken = await t.post(PATHS.toggle, toggleBody, { 'x-api-key': t.apiKey, authorization: 'Bearer x.y.z' });
    assert.equal(badToken.statusCode, 401);
  });
});

describe('rate limits per process (no REDIS_URL)', () => {
  it('two instances count separately', async () => {
    const a = await startTestSouk({ RATE_LIMIT_PER_USER: '3' });
    const b = await startTestSouk({ RATE_LIMIT_PER_USER: '3' });
    for (const t of [a, b]) {
      for (let i = 0; i < 3; i++) assert.equal((await t.toggle(USERS.amina, toggleBody)).statusCode, 200);
    }
    assert.equal((await a.toggle(USERS.amina, toggleBody)).statusCode, 429);
    assert.equal((await b.toggle(USERS.amina, toggleBody)).statusCode, 429);
  });
});

describe('rate limits shared through Redis', { skip: redisSkip }, () => {
  async function pair(env: Record<string, string>): Promise<[TestSouk, TestSouk]> {
    return [await startTestSouk(env), await startTestSouk(env)];
  }

  it('two instances share the per-user count', async () => {
    const [a, b] = await pair({ RATE_LIMIT_PER_USER: '3', REDIS_URL, RATE_LIMIT_REDIS_PREFIX: prefix() });
    assert.equal((await a.toggle(USERS.amina, toggleBody)).statusCode, 200);
    assert.equal((await b.toggle(USERS.amina, toggleBody)).statusCode, 200);
    assert.equal((await a.toggle(USERS.amina, toggleBody)).statusCode, 200);
    const limited = await b.toggle(USERS.amina, toggleBody);
    assert.equal(limited.statusCode, 429);
    assert.deepEqual(limited.json(), TOO_MANY_USER);
    assertRetryAfter(limited.headers['retry-after'], 60);
    assert.equal((await a.toggle(USERS.amina, toggleBody)).statusCode, 429);
    assert.equal((await b.toggle(USERS.sara, toggleBody)).statusCode, 200);
  });

  it('two instances share the per-key count, and Redis holds only a hash of the key', async () => {
    const keyPrefix = prefix();
    const apiKey = `test-api-key-${randomBytes(8).toString('hex')}`;
    const [a, b] = await pair({
      RATE_LIMIT_PER_KEY: '2',
      RATE_LIMIT_PER_USER: '0',
      REDIS_URL,
      RATE_LIMIT_REDIS_PREFIX: keyPrefix,
      API_KEY: apiKey,
    });
    assert.equal((await a.toggle(USERS.amina, toggleBody)).statusCode, 200);
    assert.equal((await b.toggle(USERS.sara, toggleBody)).statusCode, 200);
    const limited = await a.toggle(USERS.youssef, toggleBody);
    assert.equal(limited.statusCode, 429);
    assert.deepEqual(limited.json(), TOO_MANY_KEY);

    const { Redis } = await import('ioredis');
    const redis = new Redis(REDIS_URL);
    after(() => redis.disconnect());
    const keys = await redis.keys(`${keyPrefix}*`);
    assert.equal(keys.length, 1);
    assert.ok(!keys[0]!.includes(apiKey), `${keys[0]} must not hold the raw key`);
    const ttl = await redis.pttl(keys[0]!);
    assert.ok(ttl > 0 && ttl <= 60_000, 'the counter expires with its window');
  });

  it('fails open while Redis is unreachable, and counts again when it is back', async () => {
    const target = new URL(REDIS_URL);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
    await proxy.start();
    after(() => proxy.stop());
    const t = await startTestSouk({
      RATE_LIMIT_PER_USER: '2',
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      RATE_LIMIT_REDIS_PREFIX: prefix(),
    });
    assert.equal((await t.toggle(USERS.amina, toggleBody)).statusCode, 200);

    await proxy.stop();
    for (let i = 0; i < 5; i++) assert.equal((await t.toggle(USERS.amina, toggleBody)).statusCode, 200, 'let through while Redis is down');

    await proxy.start();
    let status = 200;
    for (let i = 0; i < 100 && status !== 429; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await t.toggle(USERS.amina, toggleBody)).statusCode;
    }
    assert.equal(status, 429, 'limited again once the counter is reachable');
  });

  it('a Redis that stops answering is skipped at once (no queueing) and reported', async () => {
    const target = new URL(REDIS_URL);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
    await proxy.start();
    after(() => proxy.stop());
    const errors: string[] = [];
    const counter = new RedisCounter({
      url: `redis://127.0.0.1:${proxy.port}`,
      prefix: prefix(),
      commandTimeoutMs: 200,
      onDown: (e) => errors.push(e.message),
    });
    after(() => counter.close());
    assert.equal(await counter.connect(), true);
    assert.deepEqual(await counter.hit('user:1', 60_000), { count: 1, resetMs: 60_000 });
    proxy.mode = 'blackhole';
    proxy.cutConnections();
    const started = performance.now();
    assert.equal(await counter.hit('user:1', 60_000), undefined);
    assert.ok(performance.now() - started < 5000);
    assert.ok(errors.length > 0, 'the failure is reported (the plugin logs it as a warning)');
  });
});
