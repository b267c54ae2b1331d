/**
 * Forged, tampered and malformed JWTs (D4 step 3-4): each gets its exact documented error body,
 * on both operations, and never reaches favourites or conversations.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, createSign, generateKeyPairSync, randomBytes } from 'node:crypto';
import { startTestSouk, PATHS, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { marked } from '../helpers/tokens.js';

const B = (error: string, message: string) => ({ status: 'error', error, code: '401', error_message: message });
const SEGMENT_FAULT = B('SEGMENT_FAULT', 'Incorrect JWT Format.');
const BAD_SIGNATURE = B('INVALID_TOKEN', 'JWT signature verification failed.');
const EXPIRED = B('INVALID_TOKEN', 'JWT has expired.');
const NOT_YET_VALID = B('INVALID_TOKEN', 'JWT is not valid yet.');
const NO_EXPIRY = B('INVALID_TOKEN', 'JWT has no expiry (exp claim missing).');
const NO_ISSUE_TIME = B('INVALID_TOKEN', 'JWT has no issue time (iat claim missing).');
const TIME_NOT_NUMERIC = B('INVALID_TOKEN', 'JWT exp, iat and nbf must be numbers (seconds since 1970-01-01).');
const TOO_LONG_LIVED = B('INVALID_TOKEN', 'JWT lifetime is longer than this server allows (exp too far after iat or from now).');
const NOT_BEARER = B('INVALID_AUTHORIZATION_HEADER_TOKEN_TYPE', 'Authorization header must be type of Bearer Token.');
const NOT_LOGGED_IN = { code: 'FORBIDDEN', message: 'You are not logged in.' };

type Expected = { status: number; body: unknown };
const e401 = (body: unknown): Expected => ({ status: 401, body });
const e403 = (body: unknown): Expected => ({ status: 403, body });

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const hmac = (algorithm: string, secret: string | Buffer, input: string) => createHmac(algorithm, secret).update(input).digest('base64url');
const now = () => Math.floor(Date.now() / 1000);
const DAY = 86_400;
const MAX_TTL = 30 * DAY; // TOKEN_MAX_TTL_S's default

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const rsaPublicPem = rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string;

function rs256(input: string): string {
  return createSign('RSA-SHA256').update(input).sign(rsa.privateKey).toString('base64url');
}
function es256(input: string): string {
  return createSign('SHA256').update(input).sign({ key: ec.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
}

interface Forge {
  secret: string;
  /** header.payload signed with HS256 and the installation's secret: a valid token. */
  valid(payload?: Record<string, unknown>): string;
  claims(extra?: Record<string, unknown>): Record<string, unknown>;
}

/** Each case builds its Authorization header value from the installation's secret. */
const CASES: [string, (f: Forge) => string, Expected][] = [
  // alg none and other algorithms
  ['alg none, empty signature', (f) => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(f.claims())}.`, e401(BAD_SIGNATURE)],
  [
    'alg none, keeping a valid HS256 signature',
    (f) => {
      const [, payload, signature] = f.valid().split('.');
      return `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.${signature}`;
    },
    e401(BAD_SIGNATURE),
  ],
  ['alg "None"', (f) => `${b64({ alg: 'None', typ: 'JWT' })}.${b64(f.claims())}.`, e401(BAD_SIGNATURE)],
  ['alg "NONE"', (f) => `${b64({ alg: 'NONE', typ: 'JWT' })}.${b64(f.claims())}.`, e401(BAD_SIGNATURE)],
  [
    'alg RS256 with an HMAC made with the HS secret',
    (f) => {
      const input = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(f.claims())}`;
      return `${input}.${hmac('sha256', f.secret, input)}`;
    },
    e401(BAD_SIGNATURE),
  ],
  [
    'alg RS256 signed with an RSA private key',
    (f) => {
      const input = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(f.claims())}`;
      return `${input}.${rs256(input)}`;
    },
    e401(BAD_SIGNATURE),
  ],
  [
    'alg ES256 signed with an EC private key',
    (f) => {
      const input = `${b64({ alg: 'ES256', typ: 'JWT' })}.${b64(f.claims())}`;
      return `${input}.${es256(input)}`;
    },
    e401(BAD_SIGNATURE),
  ],
  [
    'alg ES256 with an HMAC made with the HS secret',
    (f) => {
      const input = `${b64({ alg: 'ES256', typ: 'JWT' })}.${b64(f.claims())}`;
      return `${input}.${hmac('sha256', f.secret, input)}`;
    },
    e401(BAD_SIGNATURE),
  ],
  [
    'alg HS256 keyed with a public key (RS/HS confusion)',
    (f) => {
      const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(f.claims())}`;
      return `${input}.${hmac('sha256', rsaPublicPem, input)}`;
    },
    e401(BAD_SIGNATURE),
  ],
  [
    'alg RS256 with an HMAC keyed by the public key',
    (f) => {
      const input = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(f.claims())}`;
      return `${input}.${hmac('sha256', rsaPublicPem, input)}`;
    },
    e401(BAD_SIGNATURE),
  ],
  ...(['hs256', 'Hs256', 'hS256', 'HS256 ', ' HS256'] as const).map((alg): [string, (f: Forge) => string, Expected] => [
    `alg "${alg}" (odd case or spacing) with a correct HMAC`,
    (f) => {
      const input = `${b64({ alg, typ: 'JWT' })}.${b64(f.claims())}`;
      return `${input}.${hmac('sha256', f.secret, input)}`;
    },
    e401(BAD_SIGNATURE),
  ]),
  [
    'alg HS512 with the right secret',
    (f) => {
      const input = `${b64({ alg: 'HS512', typ: 'JWT' })}.${b64(f.claims())}`;
      return `${input}.${hmac('sha512', f.secret, input)}`;
    },
    e401(BAD_SIGNATURE),
  ],
  [
    'alg HS384 with the right secret',
    (f) => {
      const input = `${b64({ alg: 'HS384', typ: 'JWT' })}.${b64(f.claims())}`;
      return `${input}.${hmac('sha384', f.secret, input)}`;
    },
    e401(BAD_SIGNATURE),
  ],
  [
    'a header without alg',
    (f) => {
      const input = `${b64({ typ: 'JWT' })}.${b64(f.claims())}`;
      return `${input}.${hmac('sha256', f.secret, input)}`;
    },
    e401(BAD_SIGNATURE),
  ],
  [
    'duplicate alg keys, the last one "none"',
    (f) => {
      const input = `${b64('{"alg":"HS256","typ":"JWT","alg":"none"}')}.${b64(f.claims())}`;
      return `${input}.${hmac('sha256', f.secret, input)}`;
    },
    e401(BAD_SIGNATURE),
  ],
  [
    'signed with another secret',
    (f) => {
      const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(f.claims())}`;
      return `${input}.${hmac('sha256', `${f.secret}x`, input)}`;
    },
    e401(BAD_SIGNATURE),
  ],
  // tampering
  [
    'a tampered payload (another sub) with the old signature',
    (f) => {
      const [header, , signature] = f.valid().split('.');
      return `${header}.${b64(f.claims({ sub: String(USERS.youssef) }))}.${signature}`;
    },
    e401(BAD_SIGNATURE),
  ],
  [
    'a tampered payload (later exp) with the old signature',
    (f) => {
      const [header, , signature] = f.valid().split('.');
      return `${header}.${b64(f.claims({ exp: now() + 10 * 365 * 86400 }))}.${signature}`;
    },
    e401(BAD_SIGNATURE),
  ],
  [
    'a tampered header (kid added) with the old signature',
    (f) => {
      const [, payload, signature] = f.valid().split('.');
      return `${b64({ alg: 'HS256', typ: 'JWT', kid: '../../etc/passwd' })}.${payload}.${signature}`;
    },
    e401(BAD_SIGNATURE),
  ],
  [
    'a signature with one character changed',
    (f) => {
      const token = f.valid();
      const last = token.at(-2) === 'A' ? 'B' : 'A';
      return `${token.slice(0, -2)}${last}${token.at(-1)}`;
    },
    e401(BAD_SIGNATURE),
  ],
  ['a truncated signature', (f) => f.valid().slice(0, -5), e401(BAD_SIGNATURE)],
  ['an empty signature (header.payload.)', (f) => `${f.valid().split('.').slice(0, 2).join('.')}.`, e401(BAD_SIGNATURE)],
  // form
  ['a missing signature (two segments)', (f) => f.valid().split('.').slice(0, 2).join('.'), e401(SEGMENT_FAULT)],
  ['one segment', (f) => f.valid().split('.')[1]!, e401(SEGMENT_FAULT)],
  ['four segments', (f) => `${f.valid()}.${b64('x')}`, e401(SEGMENT_FAULT)],
  ['five empty segments', () => '....', e401(SEGMENT_FAULT)],
  ['an empty header segment', (f) => `.${f.valid().split('.').slice(1).join('.')}`, e401(SEGMENT_FAULT)],
  [
    'base64 "=" padding on the header, signed over the padded form',
    (f) => {
      const padded = Buffer.from('{"alg":"HS256","typ":"JW"}').toString('base64'); // 26 bytes: ends in "="
      assert.ok(padded.endsWith('='));
      const input = `${padded}.${b64(f.claims())}`;
      return `${input}.${hmac('sha256', f.secret, input)}`;
    },
    e401(SEGMENT_FAULT),
  ],
  [
    '"=" padding appended to the payload',
    (f) => {
      const [header, payload, signature] = f.valid().split('.');
      return `${header}.${payload}==.${signature}`;
    },
    e401(SEGMENT_FAULT),
  ],
  ['"=" padding appended to the signature', (f) => `${f.valid()}=`, e401(SEGMENT_FAULT)],
  [
    'standard base64 characters (+ and /) in the payload',
    (f) => {
      const [header, , signature] = f.valid().split('.');
      return `${header}.${Buffer.from(JSON.stringify(f.claims({ pad: '\u00fb\u00ff\u00fe>>>???' })))
        .toString('base64')
        .replace(/=+$/, '')}.${signature}`;
    },
    e401(SEGMENT_FAULT),
  ],
  ['a space inside the token', (f) => f.valid().replace('.', ' .'), e401(SEGMENT_FAULT)],
  ['a control character inside the token', (f) => f.valid().replace('.', '\t.'), e401(SEGMENT_FAULT)],
  ['non-ASCII characters in the token', (f) => `${f.valid()}é`, e401(SEGMENT_FAULT)],
  ['a header that is not JSON', (f) => `${b64('alg=HS256')}.${f.valid().split('.').slice(1).join('.')}`, e401(SEGMENT_FAULT)],
  [
    'a payload that is not JSON',
    (f) => {
      const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64('sub=1')}`;
      return `${input}.${hmac('sha256', f.secret, input)}`;
    },
    e401(SEGMENT_FAULT),
  ],
  [
    'a header that is a JSON array',
    (f) => {
      const input = `${b64(['HS256'])}.${b64(f.claims())}`;
      return `${input}.${hmac('sha256', f.secret, input)}`;
    },
    e401(SEGMENT_FAULT),
  ],
  [
    'a payload that is a JSON array (validly signed)',
    (f) => {
      const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64([f.claims()])}`;
      return `${input}.${hmac('sha256', f.secret, input)}`;
    },
    e401(SEGMENT_FAULT),
  ],
  [
    'a payload that is a JSON string (validly signed)',
    (f) => {
      const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(JSON.stringify('1'))}`;
      return `${input}.${hmac('sha256', f.secret, input)}`;
    },
    e401(SEGMENT_FAULT),
  ],
  [
    'a payload that is JSON null (validly signed)',
    (f) => {
      const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64('null')}`;
      return `${input}.${hmac('sha256', f.secret, input)}`;
    },
    e401(SEGMENT_FAULT),
  ],
  ['a header that is a JSON number', (f) => `${b64('256')}.${f.valid().split('.').slice(1).join('.')}`, e401(SEGMENT_FAULT)],
  [
    'segments that are not UTF-8 JSON',
    (f) => `${Buffer.from([0xff, 0xfe, 0x7b]).toString('base64url')}.${f.valid().split('.').slice(1).join('.')}`,
    e401(SEGMENT_FAULT),
  ],
  // claims
  ['an expired token', (f) => f.valid(f.claims({ iat: now() - 7200, exp: now() - 3600 })), e401(EXPIRED)],
  ['a token that expired a second ago', (f) => f.valid(f.claims({ iat: now() - 7200, exp: now() - 1 })), e401(EXPIRED)],
  ['nbf an hour in the future', (f) => f.valid(f.claims({ nbf: now() + 3600 })), e401(NOT_YET_VALID)],
  ['no exp claim', (f) => f.valid(f.claims({ exp: undefined })), e401(NO_EXPIRY)],
  ['exp that is a string', (f) => f.valid(f.claims({ exp: String(now() + 3600) })), e401(TIME_NOT_NUMERIC)],
  ['exp that is null', (f) => f.valid(f.claims({ exp: null })), e401(TIME_NOT_NUMERIC)],
  [
    'exp of 1e400 (Infinity once parsed)',
    (f) => {
      const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(`{"sub":"${USERS.amina}","iat":${now()},"exp":1e400}`)}`;
      return `${input}.${hmac('sha256', f.secret, input)}`;
    },
    e401(TIME_NOT_NUMERIC),
  ],
  ['nbf that is a string', (f) => f.valid(f.claims({ nbf: String(now() + 3600) })), e401(TIME_NOT_NUMERIC)],
  ['nbf that is an object', (f) => f.valid(f.claims({ nbf: {} })), e401(TIME_NOT_NUMERIC)],
  ['iat that is a string', (f) => f.valid(f.claims({ iat: String(now()) })), e401(TIME_NOT_NUMERIC)],
  ['no iat claim', (f) => f.valid(f.claims({ iat: undefined })), e401(NO_ISSUE_TIME)],
  ['exp of 1e300', (f) => f.valid(f.claims({ exp: 1e300 })), e401(TOO_LONG_LIVED)],
  [
    'exp - iat one second over TOKEN_MAX_TTL_S',
    (f) => f.valid(f.claims({ iat: now() - DAY, exp: now() - DAY + MAX_TTL + 1 })),
    e401(TOO_LONG_LIVED),
  ],
  [
    'exp further than TOKEN_MAX_TTL_S from now (iat in the future)',
    (f) => f.valid(f.claims({ iat: now() + DAY, exp: now() + DAY + MAX_TTL - 60 })),
    e401(TOO_LONG_LIVED),
  ],
  [
    'a lifetime of exactly TOKEN_MAX_TTL_S',
    (f) => f.valid(f.claims({ iat: now(), exp: now() + MAX_TTL })),
    { status: 200, body: undefined },
  ],
  ['a sub that is not a user', (f) => f.valid(f.claims({ sub: '999' })), e403(NOT_LOGGED_IN)],
  ['a sub that is a number, not a string', (f) => f.valid(f.claims({ sub: USERS.amina })), e403(NOT_LOGGED_IN)],
  ['a sub with a leading zero', (f) => f.valid(f.claims({ sub: `0${USERS.amina}` })), e403(NOT_LOGGED_IN)],
  ['a sub with a trailing space', (f) => f.valid(f.claims({ sub: `${USERS.amina} ` })), e403(NOT_LOGGED_IN)],
  ['a sub beyond 2^53', (f) => f.valid(f.claims({ sub: '99999999999999999999' })), e403(NOT_LOGGED_IN)],
  ['no sub claim', (f) => f.valid(f.claims({ sub: undefined })), e403(NOT_LOGGED_IN)],
  ['a disabled user', (f) => f.valid(f.claims({ sub: String(USERS.disabled) })), e403(NOT_LOGGED_IN)],
];

const SCHEME_CASES: [string, (f: Forge) => string, Expected][] = [
  ['"Bearer" with nothing after it', () => 'Bearer ', e401(NOT_BEARER)],
  ['"Basic" credentials', () => `Basic ${Buffer.from('amina:secret').toString('base64')}`, e401(NOT_BEARER)],
  ['a token without the Bearer scheme', (f) => f.valid(), e401(NOT_BEARER)],
  ['"Bearer" written in lower case', (f) => `bearer ${f.valid()}`, { status: 200, body: undefined }],
  ['two spaces after Bearer', (f) => `Bearer  ${f.valid()}`, e401(SEGMENT_FAULT)],
];

// One installation for the whole file (created at the top level, so it lives until the file ends).
// Its hundreds of bad tokens all come from 127.0.0.1: the failed-authentication throttle is off so
// that each gets its own answer (the throttle has its own tests, auth-throttle.test.ts).
const t: TestSouk = await startTestSouk({ RATE_LIMIT_AUTH_FAILURES: '0' });
const forge: Forge = (() => {
  const secret = t.jwtSecret;
  const claims = (extra: Record<string, unknown> = {}) => {
    const base: Record<string, unknown> = { sub: String(USERS.amina), name: 'amina', iat: now(), exp: now() + 3600, ...extra };
    for (const key of Object.keys(base)) if (base[key] === undefined) delete base[key];
    // Marked as Souk's, so that each case differs from a token Souk issued only in what it changes.
    return marked(base, t.tokenKeys.tokenMacKey) as Record<string, unknown>;
  };
  const valid = (payload: Record<string, unknown> = claims()) => {
    const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(payload)}`;
    return `${input}.${hmac('sha256', secret, input)}`;
  };
  return { secret, claims, valid };
})();

let address: Promise<string> | undefined;
const listening = () => (address ??= t.listen());

describe('token attacks', () => {
  const call = (path: string, authorization: string) =>
    t.post(path, path === PATHS.toggle ? { listing_id: LISTINGS.bike } : { listing_id: LISTINGS.bike, text: 'hello' }, {
      authorization,
      'x-api-key': t.apiKey,
    });

  it('the forger makes tokens the server accepts (the cases below differ from it in one respect)', async () => {
    const res = await call(PATHS.toggle, `Bearer ${forge.valid()}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), [LISTINGS.bike]);
    assert.deepEqual((await call(PATHS.toggle, `Bearer ${forge.valid()}`)).json(), []);
  });

  for (const [label, make, expected] of [
    ...CASES.map(([l, m, e]): (typeof CASES)[number] => [l, (f) => `Bearer ${m(f)}`, e]),
    ...SCHEME_CASES,
  ]) {
    it(`${label}: ${expected.status} ${JSON.stringify(expected.body ?? 'accepted')}`, async () => {
      const authorization = make(forge);
      for (const path of [PATHS.toggle, PATHS.start]) {
        const res = await call(path, authorization);
        assert.equal(res.statusCode, expected.status, `${path}: ${res.body}`);
        if (expected.body !== undefined) assert.deepEqual(res.json(), expected.body, path);
      }
      if (expected.status !== 200) {
        const db = t.souk.store.db;
        assert.deepEqual(await db.selectFrom('favourites').selectAll().execute(), []);
        assert.deepEqual(await db.selectFrom('messages').selectAll().execute(), []);
      } else {
        await t.souk.store.db.deleteFrom('favourites').execute();
        await t.souk.store.db.deleteFrom('messages').execute();
        await t.souk.store.db.deleteFrom('conversations').execute();
      }
    });
  }

  it('nbf within the 60 s leeway is accepted', async () => {
    const res = await call(PATHS.toggle, `Bearer ${forge.valid(forge.claims({ nbf: now() + 30 }))}`);
    assert.equal(res.statusCode, 200);
    await t.souk.store.db.deleteFrom('favourites').execute();
  });
});

describe('long tokens', () => {
  const filler = (n: number) =>
    randomBytes(Math.ceil(n * 0.75))
      .toString('base64url')
      .slice(0, n);

  async function send(base: string, apiKey: string, authorization: string) {
    const res = await fetch(base + PATHS.start, {
      method: 'POST',
      headers: { authorization, 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ listing_id: LISTINGS.bike, text: 'hello' }),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  }

  /** A token of exactly `length` characters signed with `secret` (the header's kid and a pad claim make up the length). */
  function tokenOfLength(length: number, secret: string): string {
    // 210 characters: the header, the signature and the claims but the padding (Souk's mark among them).
    for (let pad = Math.max(0, Math.floor(((length - 210) * 3) / 4) - 60); ; pad++) {
      for (const kid of ['k', 'kk', 'kkk']) {
        const input = `${b64({ alg: 'HS256', typ: 'JWT', kid })}.${b64(forge.claims({ pad: 'p'.repeat(pad) }))}`;
        const token = `${input}.${hmac('sha256', secret, input)}`;
        if (token.length === length) return token;
        assert.ok(token.length < length + 8, `no token of ${length} characters`);
      }
    }
  }

  it('over a real socket: up to 4096 characters a genuine token is accepted, from 4097 on any token is SEGMENT_FAULT', async () => {
    const base = await listening();
    const longest = tokenOfLength(4096, t.jwtSecret);
    const accepted = await send(base, t.apiKey, `Bearer ${longest}`);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.equal((accepted.body as { sender_id: number }).sender_id, USERS.amina);

    // Refused before anything parses it: a genuine signature does not help.
    const tooLong = tokenOfLength(4097, t.jwtSecret);
    assert.deepEqual(await send(base, t.apiKey, `Bearer ${tooLong}`), { status: 401, body: SEGMENT_FAULT });
    const forged = tokenOfLength(4097, 'not-the-secret-of-this-installation');
    assert.deepEqual(await send(base, t.apiKey, `Bearer ${forged}`), { status: 401, body: SEGMENT_FAULT });
    const garbage = `${filler(5 * 1024)}.${filler(5 * 1024)}.${filler(43)}`;
    assert.deepEqual(await send(base, t.apiKey, `Bearer ${garbage}`), { status: 401, body: SEGMENT_FAULT });
    assert.equal(
      await t.souk.store.db
        .selectFrom('messages')
        .select('id')
        .execute()
        .then((rows) => rows.length),
      1,
    );
    await t.souk.store.db.deleteFrom('messages').execute();
    await t.souk.store.db.deleteFrom('conversations').execute();
  });

  it('a request head beyond MAX_HEADER_SIZE is refused with 431 in shape B', async () => {
    const base = await listening();
    const res = await fetch(base + PATHS.start, {
      method: 'POST',
      headers: { authorization: `Bearer ${filler(20 * 1024)}`, 'x-api-key': t.apiKey, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(res.status, 431);
    assert.deepEqual(await res.json(), {
      status: 'error',
      error: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
      code: '431',
      error_message: 'The request headers are larger than the limit of 16384 bytes.',
    });
  });
});
