/**
 * Sign-in, sign-out and GET my (docs/routes.md "Sign-in", N4), on the original's seeded users with
 * their WordPress password hashes, replies compared with original/01-login.txt.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { createSouk } from '../../src/server.js';
import type { ImportDocument } from '../../src/cli/import-document.js';
import { recordedSteps, shapeOf } from '../helpers/recordings.js';
import { SITE_URL } from '../helpers/fixtures.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';

const LOGIN = '/wp-json/rtcl/v1/login';
const LOGOUT = '/wp-json/rtcl/v1/logout';
const MY = '/wp-json/rtcl/v1/my';

const INVALID = {
  status: 'error',
  error: 'invalid_credentials',
  code: '400',
  message: 'The username or password you entered is incorrect.',
};

/** The original's seeded users (original/wordpress-seeded.sql), their hashes as WordPress stored them. */
function seededUsers(): ImportDocument {
  const user = (id: number, login: string, first: string, hash: string) => ({
    id,
    login,
    name: `${first} Tester`,
    email: `${login}@example.test`,
    phone: `+1555000000${id}`,
    first_name: first,
    last_name: 'Tester',
    password_hash: hash,
  });
  return {
    users: [
      user(2, 'alice', 'Alice', '$wp$2y$10$lri.9y2Sj3KJYPnRzfLDgepshT1ANxpqPBrX3eQ7wAuJ2Al17H/Yi'),
      user(3, 'bob', 'Bob', '$wp$2y$10$A1UDBlhTA8D3cpAdmjiMaeBQp2qGUEXqn3iF8YEGUn/41CdyarShW'),
      user(4, 'carol', 'Carol', '$wp$2y$10$Pj6Hb2.t2IevUkRci4F42e6mS8HwYn5GGPhgD6pq5x5pOWDCmUwQu'),
      // Openwall phpass's own test vector: a hash of 'test12345' from before WordPress 6.8.
      { id: 5, login: 'dave', email: 'dave@example.test', password_hash: '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0' },
      { ...user(6, 'erin', 'Erin', '$wp$2y$10$lri.9y2Sj3KJYPnRzfLDgepshT1ANxpqPBrX3eQ7wAuJ2Al17H/Yi'), disabled: true },
      { id: 7, login: 'frank', email: 'frank@example.test' },
    ],
  };
}

// Started here, not in a hook: startTestSouk closes its Souk after the test that started it.
const signInSouk = startTestSouk({ LOGIN_FAILURES_PER_ADDRESS: '1000' }, seededUsers());
const throttledSouk = startTestSouk({ LOGIN_FAILURES_PER_USERNAME: '5', LOGIN_FAILURES_PER_ADDRESS: '20' }, seededUsers());

const json = (res: LightMyRequestResponse) => JSON.parse(res.body) as Record<string, any>;

describe('sign-in, sign-out and GET my', () => {
  let t: TestSouk;
  const steps = recordedSteps('original/01-login.txt');

  before(async () => {
    t = await signInSouk;
  });

  /** A sign-in as the app sends it: JSON unless a content type is given, from its own address. */
  function login(body: string | object, opts: { contentType?: string; ip?: string; apiKey?: string } = {}) {
    return t.app.inject({
      method: 'POST',
      url: LOGIN,
      payload: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': opts.contentType ?? 'application/json', 'x-api-key': opts.apiKey ?? t.apiKey },
      remoteAddress: opts.ip ?? '192.0.2.1',
    });
  }
  const my = (token: string) =>
    t.app.inject({ method: 'GET', url: MY, headers: { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey } });
  const logout = (token: string) =>
    t.app.inject({ method: 'POST', url: LOGOUT, headers: { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey } });

  async function signedIn(username: string, password: string): Promise<string> {
    const res = await login({ username, password });
    assert.equal(res.statusCode, 200, res.body);
    return json(res).jwt_token as string;
  }

  for (const id of ['004', '005', '006']) {
    it(`answers the original's sign-in [${id}] with the same fields, order and types`, async () => {
      const step = steps.get(id)!;
      const res = await login(step.body!, { contentType: step.headers['content-type'] });
      assert.equal(res.statusCode, step.status);
      const recorded = JSON.parse(step.replyBody);
      const reply = json(res);
      assert.deepEqual(shapeOf(reply), shapeOf(recorded));
      // The same user; the token is Souk's own, valid for LOGIN_TOKEN_TTL_S (a day, as the original's).
      assert.deepEqual(reply.user, recorded.user);
      assert.equal(reply.token_type, 'Bearer');
      assert.ok(Math.abs(reply.iat - Date.now() / 1000) < 60, String(reply.iat));
      assert.equal(reply.expires_in - reply.iat, recorded.expires_in - recorded.iat);
      assert.equal((await my(reply.jwt_token)).statusCode, 200);
    });
  }

  for (const [id, username, password] of [
    ['012', 'alice', 'alice-pass-123'],
    ['013', 'bob', 'bob-pass-123'],
  ] as const) {
    it(`answers GET my [${id}] with the original's user object, byte for byte as JSON`, async () => {
      const res = await my(await signedIn(username, password));
      assert.equal(res.statusCode, 200);
      assert.deepEqual(json(res), JSON.parse(steps.get(id)!.replyBody));
      assert.deepEqual(shapeOf(json(res)), shapeOf(JSON.parse(steps.get(id)!.replyBody)));
    });
  }

  it('takes the login or the e-mail address in any case, trimmed', async () => {
    for (const username of ['ALICE', ' alice ', 'Alice@Example.TEST']) {
      const res = await login({ username, password: 'alice-pass-123' });
      assert.equal(res.statusCode, 200, username);
      assert.equal(json(res).user.id, 2);
    }
  });

  it('answers every refusal alike: wrong password, unknown user, disabled user, user without a password', async () => {
    const refusals = [
      { username: 'alice', password: 'nope' },
      { username: 'nobody', password: 'nope' },
      { username: 'erin', password: 'alice-pass-123' },
      { username: 'frank', password: 'anything' },
      { username: 'alice', password: 'ALICE-PASS-123' },
    ];
    for (const body of refusals) {
      const res = await login(body, { ip: '192.0.2.50' });
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.deepEqual(json(res), INVALID);
    }
  });

  it('a missing username or password is a bad request (shape B), whatever the original said', async () => {
    for (const body of [{ username: 'alice' }, { password: 'x' }, { username: '', password: 'x' }, { username: 'alice', password: null }]) {
      const res = await login(body);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(json(res), {
        status: 'error',
        error: 'BADREQUEST',
        code: '400',
        error_message: 'username and password are required.',
      });
    }
  });

  it('refuses a missing or wrong API key as the original does ([009], [010])', async () => {
    for (const id of ['009', '010']) {
      const step = steps.get(id)!;
      const res = await t.app.inject({
        method: 'POST',
        url: LOGIN,
        payload: step.body,
        headers: { 'content-type': 'application/json', ...(step.headers['x-api-key'] ? { 'x-api-key': step.headers['x-api-key'] } : {}) },
      });
      assert.equal(res.statusCode, step.status);
      assert.deepEqual(json(res), JSON.parse(step.replyBody));
    }
  });

  it('stores a phpass hash again in the WordPress 6.8 form on the first sign-in, and signs in with it after', async () => {
    await signedIn('dave', 'test12345');
    const stored = await t.souk.store.db
      .selectFrom('user_credentials')
      .select('password_hash')
      .where('user_id', '=', 5)
      .executeTakeFirstOrThrow();
    assert.match(stored.password_hash, /^\$wp\$2y\$/);
    await signedIn('dave', 'test12345');
  });

  it('sign-out revokes the token used, at once, and no other token of the user', async () => {
    const first = await signedIn('carol', 'carol-pass-123');
    const second = await signedIn('carol', 'carol-pass-123');
    assert.notEqual(first, second, 'two sign-ins give two tokens');
    const out = await logout(first);
    assert.equal(out.statusCode, 200);
    assert.deepEqual(Object.keys(json(out)), ['user']);
    assert.equal(json(out).user.username, 'carol');
    for (const res of [await my(first), await logout(first)]) {
      assert.equal(res.statusCode, 401);
      assert.deepEqual(json(res), { status: 'error', error: 'INVALID_TOKEN', code: '401', error_message: 'JWT has been revoked.' });
    }
    assert.equal((await my(second)).statusCode, 200);
  });

  it('a token signed out on one instance is refused by another on the same database within its settings refresh', async () => {
    const other = await createSouk(loadConfig({ DATABASE_URL: t.database.url, SITE_URL, SETTINGS_REFRESH_MS: '200', LOG_LEVEL: 'silent' }));
    try {
      const token = await signedIn('bob', 'bob-pass-123');
      const onOther = () =>
        other.app.inject({ method: 'GET', url: MY, headers: { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey } });
      assert.equal((await onOther()).statusCode, 200);
      assert.equal((await logout(token)).statusCode, 200);
      let res = await onOther();
      for (let i = 0; i < 100 && res.statusCode === 200; i++) {
        await new Promise((r) => setTimeout(r, 50));
        res = await onOther();
      }
      assert.equal(res.statusCode, 401);
      assert.equal(json(res).error_message, 'JWT has been revoked.');
    } finally {
      await other.close();
    }
  });

  it('GET my and sign-out run the whole D4 pipeline: no Authorization is 401, a bad token 401', async () => {
    const none = await t.app.inject({ method: 'GET', url: MY, headers: { 'x-api-key': t.apiKey } });
    assert.equal(none.statusCode, 401);
    assert.equal(json(none).error, 'MISSING_AUTHORIZATION_HEADER');
    const forged = await my(`${t.token(2).slice(0, -2)}xx`);
    assert.equal(forged.statusCode, 401);
    assert.equal(json(forged).error, 'INVALID_TOKEN');
  });
});

describe('sign-in throttling', () => {
  let t: TestSouk;
  before(async () => {
    t = await throttledSouk;
  });

  const login = (username: string, password: string, ip: string) =>
    t.app.inject({
      method: 'POST',
      url: LOGIN,
      payload: { username, password },
      headers: { 'x-api-key': t.apiKey },
      remoteAddress: ip,
    });

  it('after 5 failures for one username from one address, even the right password gets 429 with Retry-After there', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await login('alice', 'wrong', '198.51.100.1')).statusCode, 400);
    const refused = await login('ALICE', 'alice-pass-123', '198.51.100.1');
    assert.equal(refused.statusCode, 429);
    assert.equal(json(refused).error, 'TOO_MANY_REQUESTS');
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 900, String(retryAfter));
    assert.equal((await login('bob', 'bob-pass-123', '198.51.100.1')).statusCode, 200, 'other usernames are not held up');
    assert.equal(
      (await login('alice', 'alice-pass-123', '198.51.100.99')).statusCode,
      200,
      'nor other addresses (LOGIN_FAILURES_PER_ACCOUNT: 30)',
    );
  });

  it("a success clears the username's failures", async () => {
    for (let i = 0; i < 4; i++) assert.equal((await login('bob', 'wrong', '203.0.113.1')).statusCode, 400);
    assert.equal((await login('bob', 'bob-pass-123', '203.0.113.1')).statusCode, 200);
    for (let i = 0; i < 4; i++) assert.equal((await login('bob', 'wrong', '203.0.113.2')).statusCode, 400);
    assert.equal((await login('bob', 'bob-pass-123', '203.0.113.2')).statusCode, 200);
  });

  it('after 20 failures from one address, every sign-in from it gets 429', async () => {
    for (let i = 0; i < 20; i++) assert.equal((await login(`nobody${i}`, 'x', '192.0.2.200')).statusCode, 400);
    assert.equal((await login('carol', 'carol-pass-123', '192.0.2.200')).statusCode, 429);
    assert.equal((await login('carol', 'carol-pass-123', '192.0.2.201')).statusCode, 200);
  });
});

it('no password, hash or token reaches the log, even from the query string', async () => {
  const lines: string[] = [];
  const t = await startTestSouk({ LOG_LEVEL: 'trace' }, seededUsers(), { logDestination: { write: (line) => lines.push(line) } });
  {
    const ok = await t.app.inject({
      method: 'POST',
      url: LOGIN,
      payload: { username: 'alice', password: 'alice-pass-123' },
      headers: { 'x-api-key': t.apiKey },
    });
    assert.equal(ok.statusCode, 200);
    const token = json(ok).jwt_token as string;
    await t.app.inject({ method: 'POST', url: `${LOGIN}?username=bob&password=bob-pass-123`, headers: { 'x-api-key': t.apiKey } });
    await t.app.inject({
      method: 'POST',
      url: LOGIN,
      payload: { username: 'alice', password: 'wrong-pass-456' },
      headers: { 'x-api-key': t.apiKey },
    });
    await t.app.inject({ method: 'POST', url: LOGOUT, headers: { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey } });
    const log = lines.join('');
    assert.ok(log.includes('/login'), 'the requests were logged');
    for (const secret of ['alice-pass-123', 'bob-pass-123', 'wrong-pass-456', '$wp$', token, token.split('.')[2]!]) {
      assert.ok(!log.includes(secret), secret);
    }
  }
});
