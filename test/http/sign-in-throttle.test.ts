/**
 * The sign-in throttles (docs/hardening.md, "Second security round", 4 and 10): an attempt is taken
 * from its budgets before its password is checked, so a burst cannot pass a check made before any
 * of it was counted, in one process or across instances sharing Redis; and the budgets are the
 * account's, whichever of its names (login, e-mail, any case) is sent. Through the real app.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword } from '../../src/auth/passwords.js';
import { marketplace, USERS } from '../helpers/fixtures.js';
import { REDIS_URL, redisPrefix, redisSkip } from '../helpers/redis.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';

const PASSWORD = 'the right password';
const LOGIN = '/wp-json/rtcl/v1/login';
const INVALID = {
  status: 'error',
  error: 'invalid_credentials',
  code: '400',
  message: 'The username or password you entered is incorrect.',
};

async function withPassword() {
  const doc = marketplace();
  const hash = await hashPassword(PASSWORD);
  doc.users = doc.users!.map((u) => (u.id === USERS.amina ? { ...u, email: 'amina@example.com', password_hash: hash } : u));
  return doc;
}

const login = (t: TestSouk, username: string, password: string, ip = '198.51.100.7') =>
  t.app.inject({ method: 'POST', url: LOGIN, payload: { username, password }, headers: { 'x-api-key': t.apiKey }, remoteAddress: ip });

/** How many of the replies have each status. */
const tally = (replies: Array<{ statusCode: number }>) =>
  replies.reduce<Record<number, number>>((n, r) => ({ ...n, [r.statusCode]: (n[r.statusCode] ?? 0) + 1 }), {});

const BUDGET = { LOGIN_FAILURES_PER_USERNAME: '5', LOGIN_FAILURES_PER_ADDRESS: '1000', SIGN_IN_QUEUE: '1000' };

describe('a burst of wrong passwords for one user from one address', () => {
  it('gets at most LOGIN_FAILURES_PER_USERNAME verified; the rest are 429', async () => {
    const t = await startTestSouk(BUDGET, await withPassword());
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => login(t, 'amina', `wrong ${i}`)));
    assert.deepEqual(tally(replies), { 400: 5, 429: 25 });
    assert.equal((await login(t, 'amina', PASSWORD)).statusCode, 429, 'the budget is spent');
  });

  it('an undecided attempt (busy) is given back, a right one too', async () => {
    const t = await startTestSouk({ ...BUDGET, PASSWORD_CONCURRENCY: '1', SIGN_IN_QUEUE: '0' }, await withPassword());
    const replies = await Promise.all(Array.from({ length: 12 }, () => login(t, 'amina', 'wrong')));
    const counts = tally(replies);
    assert.equal((counts[400] ?? 0) + (counts[503] ?? 0), 12, JSON.stringify(counts));
    for (let i = 0; i < 5 - (counts[400] ?? 0); i++) assert.equal((await login(t, 'amina', 'wrong')).statusCode, 400);
    assert.equal((await login(t, 'amina', 'wrong')).statusCode, 429, 'only the refusals were counted');
  });

  it('through Redis, two instances together verify at most the budget', { skip: redisSkip }, async () => {
    const env = { ...BUDGET, REDIS_URL, RATE_LIMIT_REDIS_PREFIX: redisPrefix() };
    const doc = await withPassword();
    const a = await startTestSouk(env, doc);
    const b = await startTestSouk({ ...env, DATABASE_URL: a.database.url }, null);
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => login(i % 2 ? a : b, 'amina', `wrong ${i}`)));
    assert.deepEqual(tally(replies), { 400: 5, 429: 25 });
    assert.equal((await login(a, 'amina', PASSWORD)).statusCode, 429);
    assert.equal((await login(b, 'amina', PASSWORD)).statusCode, 429);
  });
});

describe("the username's budget", () => {
  it("is the account's, whichever of its names is sent: login, e-mail, any case", async () => {
    const t = await startTestSouk(BUDGET, await withPassword());
    for (const name of ['amina', 'AMINA', 'amina@example.com', 'Amina@Example.COM', ' amina ']) {
      assert.equal((await login(t, name, 'wrong')).statusCode, 400, name);
    }
    for (const name of ['aMiNa', 'AMINA@EXAMPLE.COM']) assert.equal((await login(t, name, PASSWORD)).statusCode, 429, name);
  });

  it('of a name nobody has is shared by its spellings in case and accents', async () => {
    const t = await startTestSouk(BUDGET, await withPassword());
    for (const name of ['zoé', 'ZOÉ', 'zoe', 'Zoe\u0301', 'ZOE']) assert.equal((await login(t, name, 'wrong')).statusCode, 400, name);
    assert.equal((await login(t, 'zoë', 'wrong')).statusCode, 429);
  });
});

describe('a NUL or half a surrogate pair in the username or password', () => {
  it('is refused as wrong credentials, counted against the address, never a 500', async () => {
    const t = await startTestSouk({ LOGIN_FAILURES_PER_USERNAME: '5', LOGIN_FAILURES_PER_ADDRESS: '4' }, await withPassword());
    for (const [username, password] of [
      ['ami\0na', PASSWORD],
      ['amina', `${PASSWORD}\0`],
      ['ami\uD800na', PASSWORD],
      ['amina', `\uDC00${PASSWORD}`],
    ] as const) {
      const res = await login(t, username, password);
      assert.equal(res.statusCode, 400, JSON.stringify(username));
      assert.deepEqual(res.json(), INVALID);
    }
    assert.equal((await login(t, 'amina', PASSWORD)).statusCode, 429, "the address's four failures were counted");
  });
});

describe('failures from strangers do not lock the owner out', () => {
  const ENV = { LOGIN_FAILURES_PER_USERNAME: '2', LOGIN_FAILURES_PER_ACCOUNT: '6', LOGIN_FAILURES_PER_ADDRESS: '1000' };

  it("an address over its budget for an account is refused alone; the owner's address signs in", async () => {
    const t = await startTestSouk(ENV, await withPassword());
    for (let i = 0; i < 2; i++) assert.equal((await login(t, 'amina', 'wrong', '203.0.113.66')).statusCode, 400);
    const refused = await login(t, 'amina', PASSWORD, '203.0.113.66');
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal((await login(t, 'amina', PASSWORD, '198.51.100.1')).statusCode, 200, 'another address is not held up');
  });

  it('beyond LOGIN_FAILURES_PER_ACCOUNT only an address the account signed in from passes', async () => {
    const t = await startTestSouk(ENV, await withPassword());
    assert.equal((await login(t, 'amina', PASSWORD, '198.51.100.1')).statusCode, 200, 'the owner, once');
    for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      for (let i = 0; i < 2; i++) assert.equal((await login(t, 'amina', 'wrong', ip)).statusCode, 400, ip);
    }
    assert.equal((await login(t, 'amina', PASSWORD, '203.0.113.4')).statusCode, 429, 'a new address, right password: refused');
    assert.equal((await login(t, 'amina', 'wrong', '198.51.100.1')).statusCode, 400, 'the known address may still try');
    assert.equal((await login(t, 'amina', PASSWORD, '198.51.100.1')).statusCode, 200);
    assert.equal((await login(t, 'youssef', 'wrong', '203.0.113.4')).statusCode, 400, 'other accounts are not held up');
  });

  it('through Redis, an address known on one instance passes on another', { skip: redisSkip }, async () => {
    const env = { ...ENV, REDIS_URL, RATE_LIMIT_REDIS_PREFIX: redisPrefix() };
    const a = await startTestSouk(env, await withPassword());
    const b = await startTestSouk({ ...env, DATABASE_URL: a.database.url }, null);
    assert.equal((await login(a, 'amina', PASSWORD, '198.51.100.1')).statusCode, 200);
    for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      for (const t of [a, b]) assert.equal((await login(t, 'amina', 'wrong', ip)).statusCode, 400, ip);
    }
    assert.equal((await login(a, 'amina', PASSWORD, '203.0.113.4')).statusCode, 429);
    assert.equal((await login(b, 'amina', PASSWORD, '198.51.100.1')).statusCode, 200);
  });
});

it('remembering known addresses for 30 days (past the 2^31 ms a timer takes) starts no overflowing timer', async () => {
  const warnings: string[] = [];
  const listen = (w: Error) => warnings.push(w.name);
  process.on('warning', listen);
  try {
    const t = await startTestSouk({ LOGIN_KNOWN_ADDRESS_S: String(30 * 86_400) }, await withPassword());
    assert.equal((await login(t, 'amina', PASSWORD)).statusCode, 200);
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off('warning', listen);
  }
  assert.deepEqual(warnings, []);
});
