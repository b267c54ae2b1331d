/**
 * The verified-token cache and the secret behind it (issue 17: H1, M1, L1), through the real app:
 * a forged token is not cached, a verified one is not verified again, and a secret that cannot be
 * used refuses every token instead of letting the old secret's tokens back in (that forged tokens
 * never stay in memory: forged-token-memory.test.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { VerifiedTokens } from '../../src/auth/verified-tokens.js';
import { signToken } from '../../src/auth/jwt.js';
import { SETTING } from '../../src/auth/settings.js';
import { startTestSouk, PATHS } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { paddedForgery } from '../helpers/tokens.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);
const BAD_SIGNATURE = { status: 'error', error: 'INVALID_TOKEN', code: '401', error_message: 'JWT signature verification failed.' };

describe('the verified-token cache', () => {
  it('a failed token is not cached (each try is verified again); a verified one is cached and not verified again', async () => {
    const t = await startTestSouk();
    const call = (token: string) => t.post(PATHS.toggle, { listing_id: 999 }, { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey });
    const start = t.souk.tokens.stats();

    const forgery = paddedForgery('not-the-secret-of-this-installation', USERS.amina, 200);
    for (let i = 0; i < 2; i++) assert.deepEqual((await call(forgery)).json(), BAD_SIGNATURE);
    const afterForged = t.souk.tokens.stats();
    assert.deepEqual(afterForged, { cachedTokens: start.cachedTokens, signatureChecks: start.signatureChecks + 2 });

    const genuine = t.token(USERS.amina);
    for (let i = 0; i < 3; i++) assert.equal((await call(genuine)).statusCode, 400); // let in: listing 999 not found
    assert.deepEqual(t.souk.tokens.stats(), {
      cachedTokens: afterForged.cachedTokens + 1,
      signatureChecks: afterForged.signatureChecks + 1,
    });

    // Keyed by its text, a token is cached only up to 1,024 characters: a longer genuine one (a
    // long login in its claims) is let in each time and verified each time.
    const long = t.token(USERS.amina, { login: 'l'.repeat(1200) });
    assert.ok(long.length > 1024);
    for (let i = 0; i < 2; i++) assert.equal((await call(long)).statusCode, 400);
    assert.deepEqual(t.souk.tokens.stats(), {
      cachedTokens: afterForged.cachedTokens + 1,
      signatureChecks: afterForged.signatureChecks + 3,
    });
  });

  it('holds at most its capacity, dropping the least recently used, and an entry only until its time', () => {
    const cache = new VerifiedTokens<string>(3);
    for (const key of ['a', 'b', 'c']) cache.set(key, key.toUpperCase(), 1000);
    assert.equal(cache.get('a', 0), 'A'); // a is now the most recently used
    cache.set('d', 'D', 1000);
    assert.equal(cache.size, 3);
    assert.equal(cache.get('b', 0), undefined);
    assert.deepEqual(
      ['a', 'c', 'd'].map((k) => cache.get(k, 0)),
      ['A', 'C', 'D'],
    );
    assert.equal(cache.get('a', 1001), undefined);
    assert.equal(cache.size, 2);
  });
});

describe('an unusable jwt_secret (fail closed)', () => {
  for (const [label, unusable] of [
    ['blanked', (t: Awaited<ReturnType<typeof startTestSouk>>) => t.souk.store.settings.set(SETTING.jwtSecret, '  ')],
    [
      'deleted',
      (t: Awaited<ReturnType<typeof startTestSouk>>) =>
        t.souk.store.db.deleteFrom('settings').where('key', '=', SETTING.jwtSecret).execute(),
    ],
  ] as const) {
    it(`${label}: every token is refused, the old secret's included, and it is logged once`, async () => {
      const lines: string[] = [];
      const t = await startTestSouk({ LOG_LEVEL: 'info' }, undefined, { logDestination: { write: (line) => lines.push(line) } });
      const token = t.token(USERS.amina);
      assert.equal((await t.toggle(USERS.amina, { listing_id: LISTINGS.bike })).statusCode, 200);

      await unusable(t);
      await t.souk.settings.refresh();
      for (let i = 0; i < 3; i++) {
        const res = await t.post(PATHS.toggle, { listing_id: LISTINGS.bike }, { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey });
        assert.equal(res.statusCode, 401, `try ${i + 1}: ${res.body}`);
        assert.deepEqual(res.json(), BAD_SIGNATURE);
        // A token signed with the empty secret is no way in either.
        const empty = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: String(USERS.amina), iat: now(), exp: now() + 60 })}`;
        const withEmpty = `${empty}.${createHmac('sha256', '').update(empty).digest('base64url')}`;
        assert.equal(
          (await t.post(PATHS.toggle, { listing_id: LISTINGS.bike }, { authorization: `Bearer ${withEmpty}`, 'x-api-key': t.apiKey }))
            .statusCode,
          401,
        );
      }
      const logged = lines.filter((line) => line.includes('jwt_secret cannot be used'));
      assert.equal(logged.length, 1, lines.join(''));
      assert.equal(JSON.parse(logged[0]!).level, 50);
      assert.ok(!lines.join('').includes(t.jwtSecret));

      // A usable secret lets its tokens in again, and only them.
      const secret = 'a-new-secret-0123456789abcdef';
      await t.souk.store.settings.set(SETTING.jwtSecret, secret);
      await t.souk.settings.refresh();
      const fresh = signToken({ ...t.tokenKeys, jwtSecret: secret }, USERS.amina, 'amina', 600);
      const ok = await t.post(PATHS.toggle, { listing_id: LISTINGS.bike }, { authorization: `Bearer ${fresh}`, 'x-api-key': t.apiKey });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(
        (await t.post(PATHS.toggle, { listing_id: LISTINGS.bike }, { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey })).statusCode,
        401,
      );
    });
  }
});
