/**
 * Issue 26, findings 3 and 6, on a WordPress site's tables (MariaDB): a signed-out token is refused
 * in every spelling, and sign-outs in a loop keep a bounded number of rows in
 * wp_souk_revoked_tokens, every token signed out still refused.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { signToken } from '../../../src/auth/jwt.js';
import { startTestSouk, type TestSouk } from '../../helpers/souk.js';
import { mysqlReachable, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';

const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';
const { alice: ALICE, bob: BOB } = SITE_USERS;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

const headers = (t: TestSouk, token: string) => ({ authorization: `Bearer ${token}`, 'x-api-key': t.apiKey });
const my = (t: TestSouk, token: string) => t.app.inject({ method: 'GET', url: '/wp-json/rtcl/v1/my', headers: headers(t, token) });
const logout = (t: TestSouk, token: string) => t.post('/wp-json/rtcl/v1/logout', {}, headers(t, token));

describe("signing out on a WordPress site's tables", { skip }, () => {
  it('refuses every spelling of a signed-out token, and keeps a bounded number of rows', async () => {
    const site = await wordpressDatabase();
    const t = await startTestSouk({ DATABASE_URL: site.url, RATE_LIMIT_AUTH_FAILURES: '0' }, null);
    const token = t.token(ALICE, { login: SITE_LOGINS[ALICE] });
    assert.equal((await logout(t, token)).statusCode, 200);
    // The same signature bytes, the last character's spare bits set.
    const spelling = token.slice(0, -1) + ALPHABET[ALPHABET.indexOf(token.at(-1)!) | 1];
    for (const other of [token, spelling]) assert.equal((await my(t, other)).statusCode, 401);

    const now = Date.now();
    const signedOut = Array.from({ length: 60 }, (_, i) =>
      signToken(t.tokenKeys, ALICE, SITE_LOGINS[ALICE]!, 3600, now - 600_000 + i * 1000),
    );
    const otherDevice = t.token(ALICE, { login: SITE_LOGINS[ALICE] });
    for (const each of signedOut) assert.equal((await logout(t, each)).statusCode, 200);
    const [rows] = await site.query<{ n: number }>('select count(*) as n from wp_souk_revoked_tokens');
    assert.ok(Number(rows!.n) <= 17, `${rows!.n} rows`);
    assert.ok(t.souk.revoked.size <= 17, `${t.souk.revoked.size} held`);
    for (const each of signedOut) assert.equal((await my(t, each)).statusCode, 401);
    assert.equal((await my(t, otherDevice)).statusCode, 200);
  });

  it("refuses a push token another user's live session registered, until that session signs out", async () => {
    const site = await wordpressDatabase();
    const t = await startTestSouk({ DATABASE_URL: site.url }, null);
    const register = (token: string) =>
      t.post('/wp-json/rtcl/v1/push-notification/register', { push_token: 'ExponentPushToken[phone]' }, headers(t, token));
    const alice = t.token(ALICE, { login: SITE_LOGINS[ALICE] });
    const bob = t.token(BOB, { login: SITE_LOGINS[BOB] });
    assert.equal((await register(alice)).statusCode, 200);
    const taken = await register(bob);
    assert.equal(taken.statusCode, 409, taken.body);
    assert.equal(taken.json().error, 'PUSH_TOKEN_TAKEN');
    assert.equal((await logout(t, alice)).statusCode, 200);
    assert.equal((await register(bob)).statusCode, 200);
    const rows = await site.query<{ user_id: number }>('select user_id from wp_souk_push_devices');
    assert.deepEqual(
      rows.map((r) => Number(r.user_id)),
      [3],
    );
  });
});
