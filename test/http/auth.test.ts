import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { startTestSouk, PATHS, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { sameKey } from '../../src/auth/api-key.js';
import type { TokenKeys } from '../../src/auth/token-mac.js';
import { marked } from '../helpers/tokens.js';

// ---- expected bodies (D4, src/http/errors.ts) ----
type Expected = { status: number; body: unknown };
const b = (status: number, error: string, error_message: string): Expected => ({
  status,
  body: { status: 'error', error, code: String(status), error_message },
});
const DENIED: Expected = { status: 403, body: { code: 'DENIED_REST_API', message: 'Denied api call', data: { status: 403 } } };
const NOT_LOGGED_IN: Expected = { status: 403, body: { code: 'FORBIDDEN', message: 'You are not logged in.' } };
const MISSING_KEY = b(
  401,
  'MISSING_X_API_KEY_HEADER',
  'X_API_KEY header not received. Either authorization header was not sent or it was removed by your server due to security reasons.',
);
const INVALID_KEY = b(401, 'INVALID_API_KEY', 'Sorry, you are using invalid API Key.');
const MISSING_AUTHORIZATION = b(
  401,
  'MISSING_AUTHORIZATION_HEADER',
  'Authorization header not received. Either authorization header was not sent or it was removed by your server due to security reasons.',
);
const NOT_BEARER = b(401, 'INVALID_AUTHORIZATION_HEADER_TOKEN_TYPE', 'Authorization header must be type of Bearer Token.');
const SEGMENT_FAULT = b(401, 'SEGMENT_FAULT', 'Incorrect JWT Format.');
const BAD_SIGNATURE = b(401, 'INVALID_TOKEN', 'JWT signature verification failed.');
const EXPIRED = b(401, 'INVALID_TOKEN', 'JWT has expired.');
const NOT_YET_VALID = b(401, 'INVALID_TOKEN', 'JWT is not valid yet.');
const NO_EXPIRY = b(401, 'INVALID_TOKEN', 'JWT has no expiry (exp claim missing).');

// ---- hand-made tokens ----
const b64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);
const HS256 = { alg: 'HS256', typ: 'JWT' };

/** Signed with the keys' secret; a payload that is a JSON object is marked as Souk's (helpers/tokens.ts). */
function sign(keys: TokenKeys, header: unknown, payload: unknown, hash: 'sha256' | 'sha512' = 'sha256'): string {
  const head = `${b64url(header)}.${b64url(marked(payload, keys.tokenMacKey))}`;
  return `${head}.${createHmac(hash, keys.jwtSecret).update(head).digest('base64url')}`;
}
const claims = (extra: Record<string, unknown> = {}) => ({ sub: '3', name: 'sara', iat: now(), exp: now() + 3600, ...extra });

// ---- calling both operations ----
type Op = 'toggle' | 'start';
const OPS: Op[] = ['toggle', 'start'];
// Bodies that would succeed for sara, so that a wrong "let in" shows up as a 200 and stored rows.
const BODY: Record<Op, unknown> = { toggle: { listing_id: LISTINGS.bike }, start: { listing_id: LISTINGS.bike, text: 'hello' } };

function call(t: TestSouk, op: Op, headers: Record<string, string | undefined>) {
  return t.post(PATHS[op], BODY[op], headers);
}

async function assertUntouched(t: TestSouk): Promise<void> {
  for (const table of ['favourites', 'conversations', 'messages'] as const) {
    const rows = await t.souk.store.db.selectFrom(table).select('id').execute();
    assert.equal(rows.length, 0, `${table} is untouched`);
  }
}

async function assertAnswer(t: TestSouk, op: Op, headers: Record<string, string | undefined>, expected: Expected): Promise<void> {
  const res = await call(t, op, headers);
  assert.equal(res.statusCode, expected.status, res.body);
  assert.deepEqual(res.json(), expected.body);
}

const withToken = (t: TestSouk, token: string) => ({ 'x-api-key': t.apiKey, authorization: `Bearer ${token}` });

/** Each case: headers built from the test Souk, and the answer expected for each operation. */
interface Case {
  label: string;
  headers: (t: TestSouk) => Record<string, string | undefined>;
  expected: Expected | Record<Op, Expected>;
}

const CASES: Case[] = [
  // D4 step 2: the API key, before anything about Authorization.
  { label: 'X-API-KEY missing', headers: (t) => ({ authorization: `Bearer ${t.token(3)}` }), expected: MISSING_KEY },
  { label: 'X-API-KEY empty', headers: (t) => ({ 'x-api-key': '', authorization: `Bearer ${t.token(3)}` }), expected: MISSING_KEY },
  {
    label: 'X-API-KEY wrong',
    headers: (t) => ({ 'x-api-key': 'not-the-key-0123456789abcdef', authorization: `Bearer ${t.token(3)}` }),
    expected: INVALID_KEY,
  },
  {
    label: 'X-API-KEY with a character more',
    headers: (t) => ({ 'x-api-key': `${t.apiKey}x`, authorization: `Bearer ${t.token(3)}` }),
    expected: INVALID_KEY,
  },
  {
    label: 'X-API-KEY with a character less',
    headers: (t) => ({ 'x-api-key': t.apiKey.slice(0, -1), authorization: `Bearer ${t.token(3)}` }),
    expected: INVALID_KEY,
  },
  {
    label: 'X-API-KEY in other case',
    headers: (t) => ({ 'x-api-key': swapCase(t.apiKey), authorization: `Bearer ${t.token(3)}` }),
    expected: INVALID_KEY,
  },
  { label: 'X-API-KEY missing and no Authorization', headers: () => ({}), expected: MISSING_KEY },
  { label: 'X-API-KEY missing and a Basic Authorization', headers: () => ({ authorization: 'Basic xyz' }), expected: MISSING_KEY },
  {
    label: 'X-API-KEY wrong and a malformed token',
    headers: () => ({ 'x-api-key': 'wrong', authorization: 'Bearer a.b' }),
    expected: INVALID_KEY,
  },

  // D4 step 3: the Authorization header.
  {
    label: 'Authorization missing',
    headers: (t) => ({ 'x-api-key': t.apiKey }),
    expected: { toggle: NOT_LOGGED_IN, start: MISSING_AUTHORIZATION },
  },
  {
    label: 'Authorization empty',
    headers: (t) => ({ 'x-api-key': t.apiKey, authorization: '' }),
    expected: { toggle: NOT_LOGGED_IN, start: MISSING_AUTHORIZATION },
  },
  { label: 'Authorization Basic', headers: (t) => ({ 'x-api-key': t.apiKey, authorization: 'Basic xyz' }), expected: NOT_BEARER },
  { label: 'Authorization "Bearer" alone', headers: (t) => ({ 'x-api-key': t.apiKey, authorization: 'Bearer' }), expected: NOT_BEARER },
  { label: 'Authorization Token', headers: (t) => ({ 'x-api-key': t.apiKey, authorization: 'Token abc' }), expected: NOT_BEARER },
  {
    label: 'Authorization with the token and no scheme',
    headers: (t) => ({ 'x-api-key': t.apiKey, authorization: t.token(3) }),
    expected: NOT_BEARER,
  },
  {
    label: 'Authorization "Bearer:" with a colon',
    headers: (t) => ({ 'x-api-key': t.apiKey, authorization: `Bearer:${t.token(3)}` }),
    expected: NOT_BEARER,
  },

  // The token's form: three base64url segments, the first two JSON objects.
  { label: 'a token of two segments', headers: (t) => withToken(t, t.token(3).split('.').slice(0, 2).join('.')), expected: SEGMENT_FAULT },
  { label: 'a token of four segments', headers: (t) => withToken(t, `${t.token(3)}.abc`), expected: SEGMENT_FAULT },
  { label: 'a token of one word', headers: (t) => withToken(t, 'abc'), expected: SEGMENT_FAULT },
  {
    label: 'a token with an empty header segment',
    headers: (t) => withToken(t, `.${t.token(3).split('.').slice(1).join('.')}`),
    expected: SEGMENT_FAULT,
  },
  { label: 'a token with non-base64url characters', headers: (t) => withToken(t, t.token(3).replace('.', '$.')), expected: SEGMENT_FAULT },
  {
    label: 'a token with base64 "+" and "/"',
    headers: (t) => withToken(t, `${b64url(HS256)}+/.${b64url(claims())}.abc`),
    expected: SEGMENT_FAULT,
  },
  { label: 'a token with "=" padding', headers: (t) => withToken(t, `${b64url(HS256)}=.${b64url(claims())}.abc`), expected: SEGMENT_FAULT },
  { label: 'a header that is not JSON', headers: (t) => withToken(t, sign(t.tokenKeys, 'not json', claims())), expected: SEGMENT_FAULT },
  { label: 'a payload that is not JSON', headers: (t) => withToken(t, sign(t.tokenKeys, HS256, '{"sub":"3"')), expected: SEGMENT_FAULT },
  { label: 'a payload that is a JSON array', headers: (t) => withToken(t, sign(t.tokenKeys, HS256, [claims()])), expected: SEGMENT_FAULT },
  { label: 'a header that is a JSON array', headers: (t) => withToken(t, sign(t.tokenKeys, [HS256], claims())), expected: SEGMENT_FAULT },
  { label: 'a payload that is a JSON string', headers: (t) => withToken(t, sign(t.tokenKeys, HS256, '"3"')), expected: SEGMENT_FAULT },
  { label: 'a payload that is JSON null', headers: (t) => withToken(t, sign(t.tokenKeys, HS256, 'null')), expected: SEGMENT_FAULT },

  // Signature and algorithm.
  {
    label: 'a token signed with another secret',
    headers: (t) => withToken(t, sign({ ...t.tokenKeys, jwtSecret: 'another-secret-another-secret-00' }, HS256, claims())),
    expected: BAD_SIGNATURE,
  },
  {
    label: 'an expired token signed with another secret (the signature is checked first)',
    headers: (t) =>
      withToken(t, sign({ ...t.tokenKeys, jwtSecret: 'another-secret-another-secret-00' }, HS256, claims({ exp: now() - 10 }))),
    expected: BAD_SIGNATURE,
  },
  {
    label: 'a tampered payload with the old signature',
    headers: (t) => {
      const [head, , signature] = sign(t.tokenKeys, HS256, claims()).split('.');
      return withToken(t, `${head}.${b64url(claims({ sub: '1' }))}.${signature}`);
    },
    expected: BAD_SIGNATURE,
  },
  {
    label: 'alg none, unsigned',
    headers: (t) => withToken(t, `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims())}.`),
    expected: BAD_SIGNATURE,
  },
  {
    label: 'alg none with an HMAC signature',
    headers: (t) => withToken(t, sign(t.tokenKeys, { alg: 'none', typ: 'JWT' }, claims())),
    expected: BAD_SIGNATURE,
  },
  {
    label: 'alg HS256 with an empty signature',
    headers: (t) => withToken(t, `${b64url(HS256)}.${b64url(claims())}.`),
    expected: BAD_SIGNATURE,
  },
  {
    label: 'alg HS512',
    headers: (t) => withToken(t, sign(t.tokenKeys, { alg: 'HS512', typ: 'JWT' }, claims(), 'sha512')),
    expected: BAD_SIGNATURE,
  },
  {
    label: 'alg "hs256" in lower case',
    headers: (t) => withToken(t, sign(t.tokenKeys, { alg: 'hs256', typ: 'JWT' }, claims())),
    expected: BAD_SIGNATURE,
  },
  {
    label: 'an RS256 header',
    headers: (t) => withToken(t, sign(t.tokenKeys, { alg: 'RS256', typ: 'JWT' }, claims())),
    expected: BAD_SIGNATURE,
  },
  { label: 'a header without alg', headers: (t) => withToken(t, sign(t.tokenKeys, { typ: 'JWT' }, claims())), expected: BAD_SIGNATURE },

  // Time claims.
  {
    label: 'an expired token',
    headers: (t) => withToken(t, sign(t.tokenKeys, HS256, claims({ iat: now() - 7200, exp: now() - 10 }))),
    expected: EXPIRED,
  },
  {
    label: 'nbf 2 minutes ahead',
    headers: (t) => withToken(t, sign(t.tokenKeys, HS256, claims({ nbf: now() + 120 }))),
    expected: NOT_YET_VALID,
  },
  { label: 'no exp', headers: (t) => withToken(t, sign(t.tokenKeys, HS256, { sub: '3', name: 'sara', iat: now() })), expected: NO_EXPIRY },

  // D4 step 4: the token's user.
  {
    label: 'sub of a user that does not exist',
    headers: (t) => withToken(t, sign(t.tokenKeys, HS256, claims({ sub: '999' }))),
    expected: NOT_LOGGED_IN,
  },
  { label: 'a non-numeric sub', headers: (t) => withToken(t, sign(t.tokenKeys, HS256, claims({ sub: 'sara' }))), expected: NOT_LOGGED_IN },
  {
    label: 'a numeric (not string) sub',
    headers: (t) => withToken(t, sign(t.tokenKeys, HS256, claims({ sub: 3 }))),
    expected: NOT_LOGGED_IN,
  },
  {
    label: 'a sub with a leading zero',
    headers: (t) => withToken(t, sign(t.tokenKeys, HS256, claims({ sub: '03' }))),
    expected: NOT_LOGGED_IN,
  },
  { label: 'no sub', headers: (t) => withToken(t, sign(t.tokenKeys, HS256, { iat: now(), exp: now() + 60 })), expected: NOT_LOGGED_IN },
  { label: 'a disabled user', headers: (t) => withToken(t, t.token(USERS.disabled)), expected: NOT_LOGGED_IN },
];

function swapCase(s: string): string {
  return [...s].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
}

// The refusals change nothing, so they share a Souk, and each checks that nothing is stored so
// far. Started here, not in a test: startTestSouk closes its Souk after the test that started it.
// Every refusal counts as a failed authentication from one address: that throttle is off here
// (auth-throttle.test.ts has it).
const refusing = startTestSouk({ RATE_LIMIT_AUTH_FAILURES: '0' });
const restSwitchedOff = startTestSouk({ RATE_LIMIT_AUTH_FAILURES: '0' }).then(switchRestOff);

async function switchRestOff(t: TestSouk): Promise<TestSouk> {
  await t.souk.store.settings.set('rest_api', 'false');
  await t.souk.settings.refresh();
  return t;
}

describe('authentication (interface Errors, D4)', () => {
  for (const c of CASES) {
    for (const op of OPS) {
      const expected = 'status' in c.expected ? (c.expected as Expected) : (c.expected as Record<Op, Expected>)[op];
      it(`${op}: ${c.label} -> ${expected.status} ${JSON.stringify(expected.body).slice(0, 60)}`, async () => {
        const t = await refusing;
        await assertAnswer(t, op, c.headers(t), expected);
        await assertUntouched(t);
      });
    }
  }

  it('lets the same headers in when they are right (control for the cases above)', async () => {
    const t = await startTestSouk();
    const toggle = await call(t, 'toggle', t.auth(USERS.sara));
    assert.equal(toggle.statusCode, 200);
    assert.deepEqual(toggle.json(), [101]);
    const start = await call(t, 'start', t.auth(USERS.sara));
    assert.equal(start.statusCode, 200);
    assert.equal(start.json().sender_id, USERS.sara);
  });

  for (const op of OPS) {
    it(`${op}: accepts a lower-case "bearer" scheme`, async () => {
      const t = await startTestSouk();
      const res = await call(t, op, { 'x-api-key': t.apiKey, authorization: `bearer ${t.token(USERS.sara)}` });
      assert.equal(res.statusCode, 200, res.body);
    });

    it(`${op}: accepts a hand-signed HS256 token with nbf 30 s ahead (60 s leeway)`, async () => {
      const t = await startTestSouk();
      const res = await call(t, op, withToken(t, sign(t.tokenKeys, HS256, claims({ nbf: now() + 30 }))));
      assert.equal(res.statusCode, 200, res.body);
    });
  }

  describe('REST switch (D4 step 1)', () => {
    const disabled = async () => switchRestOff(await startTestSouk());

    for (const [label, headers] of [
      ['valid credentials', (t: TestSouk) => t.auth(USERS.sara)],
      ['no API key and no Authorization', () => ({})],
      ['a wrong API key', (t: TestSouk) => ({ 'x-api-key': 'wrong', authorization: `Bearer ${t.token(USERS.sara)}` })],
      ['a malformed token', (t: TestSouk) => withToken(t, 'a.b')],
    ] as const) {
      it(`start answers DENIED_REST_API first, with ${label}`, async () => {
        const t = await restSwitchedOff;
        await assertAnswer(t, 'start', headers(t), DENIED);
        await assertUntouched(t);
      });
    }

    it('does not affect the toggle', async () => {
      const t = await disabled();
      await assertAnswer(t, 'toggle', {}, MISSING_KEY);
      await assertAnswer(t, 'toggle', { 'x-api-key': 'wrong' }, INVALID_KEY);
      const ok = await call(t, 'toggle', t.auth(USERS.sara));
      assert.equal(ok.statusCode, 200);
      assert.deepEqual(ok.json(), [101]);
    });

    it('lets start in again once re-enabled', async () => {
      const t = await disabled();
      await assertAnswer(t, 'start', t.auth(USERS.sara), DENIED);
      await t.souk.store.settings.set('rest_api', 'true');
      await t.souk.settings.refresh();
      assert.equal((await call(t, 'start', t.auth(USERS.sara))).statusCode, 200);
    });
  });

  it('uses a rotated API key and JWT secret once the settings are refreshed', async () => {
    const t = await startTestSouk();
    const oldHeaders = t.auth(USERS.sara);
    await t.souk.store.settings.set('api_key', 'rotated-api-key-0123456789abcdef');
    await t.souk.settings.refresh();
    await assertAnswer(t, 'toggle', oldHeaders, INVALID_KEY);
    await t.souk.store.settings.set('jwt_secret', 'rotated-jwt-secret-0123456789abcdef');
    await t.souk.settings.refresh();
    const oldToken = { ...oldHeaders, 'x-api-key': 'rotated-api-key-0123456789abcdef' };
    await assertAnswer(t, 'start', oldToken, BAD_SIGNATURE);
    await assertUntouched(t);
    const fresh = withToken(t, sign({ ...t.tokenKeys, jwtSecret: 'rotated-jwt-secret-0123456789abcdef' }, HS256, claims()));
    const res = await call(t, 'toggle', { ...fresh, 'x-api-key': 'rotated-api-key-0123456789abcdef' });
    assert.deepEqual(res.json(), [101]);
  });
});

describe('sameKey (constant-time API key comparison)', () => {
  const key = 'k'.repeat(43);
  for (const [label, presented, expected] of [
    ['the same key', key, true],
    ['a longer key with the same prefix', `${key}k`, false],
    ['a shorter prefix of the key', key.slice(0, 10), false],
    ['an empty key', '', false],
    ['a key differing in the last character', `${key.slice(0, -1)}x`, false],
    ['a key of the same length and other content', 'x'.repeat(43), false],
    ['a much longer key', key.repeat(100), false],
  ] as const) {
    it(`is ${expected} for ${label}`, () => {
      assert.equal(sameKey(presented, key), expected);
      assert.equal(sameKey(key, presented), expected);
    });
  }

  it('compares characters, not UTF-16 units or bytes alone', () => {
    assert.equal(sameKey('é', 'é'), true);
    assert.equal(sameKey('é', 'e\u0301'), false);
    assert.equal(sameKey('😀', '😀'), true);
  });
});
