/**
 * Issue 26, findings 3 and 6: signing out ends the token whatever its spelling, and does not grow
 * memory with the number of sign-outs. On SQLite and PostgreSQL (TEST_DATABASE_URL).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { signToken } from '../../src/auth/jwt.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { USERS } from '../helpers/fixtures.js';
import { SseClient } from '../helpers/sse.js';

const PUBLIC_SECRET = 'jdkahiu99n23948234n2329339nc248239';
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const MY = '/wp-json/rtcl/v1/my';
const EVENTS = '/wp-json/rtcl/v1/my/events';

const headers = (t: TestSouk, token: string) => ({ authorization: `Bearer ${token}`, 'x-api-key': t.apiKey });
const my = (t: TestSouk, token: string) => t.app.inject({ method: 'GET', url: MY, headers: headers(t, token) });
const logout = (t: TestSouk, token: string) => t.post('/wp-json/rtcl/v1/logout', {}, headers(t, token));

/** The three other spellings of the signature's last character: they decode to the same bytes. */
function otherSpellings(token: string): string[] {
  const index = ALPHABET.indexOf(token.at(-1)!);
  return [1, 2, 3].map((spare) => token.slice(0, -1) + ALPHABET[(index & ~3) | ((index + spare) & 3)]);
}

/** The same claims (Souk's mark included) signed again under another header: what the public secret allows. */
function resigned(token: string, secret: string): string {
  const payload = token.split('.')[1];
  const head = `${Buffer.from(JSON.stringify({ typ: 'JWT', alg: 'HS256' })).toString('base64url')}.${payload}`;
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
}

describe('signing out (issue 26, 3)', () => {
  it("refuses the token's other spellings, before and after sign-out", async () => {
    const t = await startTestSouk();
    const token = t.token(USERS.amina);
    const spellings = otherSpellings(token);
    assert.equal(new Set(spellings).size, 3);
    assert.equal((await my(t, token)).statusCode, 200);
    for (const other of spellings) assert.equal((await my(t, other)).statusCode, 401, other);
    assert.equal((await logout(t, token)).statusCode, 200);
    for (const other of [token, ...spellings]) {
      const res = await my(t, other);
      assert.equal(res.statusCode, 401, res.body);
    }
  });

  it('ends the token by its jti: a re-signed copy is refused and its stream closed', async () => {
    const t = await startTestSouk({ JWT_SECRET: PUBLIC_SECRET });
    const base = await t.listen();
    const token = t.token(USERS.amina);
    const copy = resigned(token, PUBLIC_SECRET);
    assert.notEqual(copy, token);
    assert.equal((await my(t, copy)).statusCode, 200);
    const stream = await SseClient.open(base + EVENTS, headers(t, copy));
    assert.equal(stream.status, 200);

    assert.equal((await logout(t, token)).statusCode, 200);
    await stream.waitClosed(3000);
    const res = await my(t, copy);
    assert.deepEqual([res.statusCode, res.json().error_message], [401, 'JWT has been revoked.']);
  });
});

describe('signing out in a loop (issue 26, 6)', () => {
  it('holds a bounded number of revocations per user, in memory and in the database, every token signed out still refused', async () => {
    // 200 refusals from one address: the failed-authentication throttle has its own tests.
    const t = await startTestSouk({ RATE_LIMIT_AUTH_FAILURES: '0' });
    const now = Date.now();
    // As sign-in issues them, one a second over the last ten minutes.
    const signedOut = Array.from({ length: 200 }, (_, i) => signToken(t.tokenKeys, USERS.amina, 'amina', 3600, now - 600_000 + i * 1000));
    const otherDevice = t.token(USERS.amina);
    for (const token of signedOut) assert.equal((await logout(t, token)).statusCode, 200);

    assert.ok(t.souk.revoked.size <= 17, `${t.souk.revoked.size} revocations held`);
    const rows = await t.souk.store.db.selectFrom('revoked_tokens').select('digest').execute();
    assert.ok(rows.length <= 17, `${rows.length} rows`);
    for (const token of signedOut) assert.equal((await my(t, token)).statusCode, 401);
    // Issued after them: the user's other device stays signed in.
    assert.equal((await my(t, otherDevice)).statusCode, 200);
    assert.equal((await my(t, t.token(USERS.youssef))).statusCode, 200);
  });
});
