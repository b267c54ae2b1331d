/**
 * The verified-token cache and the secret behind it (issue 17: H1, M1, L1), through the real app:
 * forged tokens never stay in memory, a verified one is not verified again, and a secret that
 * cannot be used refuses every token instead of letting the old secret's tokens back in.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { VerifiedTokens } from '../../src/auth/verified-tokens.js';
import { signToken } from '../../src/auth/jwt.js';
import { SETTING } from '../../src/auth/settings.js';
import { startTestSouk, PATHS } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);
const BAD_SIGNATURE = { status: 'error', error: 'INVALID_TOKEN', code: '401', error_message: 'JWT signature verification failed.' };

/** A token for amina signed with `secret`, its payload padded to about `length` characters. */
function forged(secret: string, length: number): string {
  const pad = randomBytes(Math.ceil((length * 3) / 4 / 1.34)).toString('base64url');
  const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: String(USERS.amina), iat: now(), exp: now() + 3600, pad })}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/** A full collection, so heapUsed measures what is retained (--expose-gc switched on at run time). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('the verified-token cache', () => {
  it('20 000 distinct long forged tokens leave the heap bounded and the cache empty; the server still answers', async () => {
    // All from 127.0.0.1: the failed-authentication throttle is off so that every token reaches the verifier.
    const t = await startTestSouk({ RATE_LIMIT_AUTH_FAILURES: '0' });
    const base = new URL(await t.listen());
    // Over a real socket: light-my-request's inject keeps memory of its own per request.
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    after(() => agent.destroy());
    const call = (token: string) =>
      new Promise<number>((resolve, reject) => {
        const headers = { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey, 'content-type': 'application/json' };
        const req = request({ host: base.hostname, port: base.port, path: PATHS.toggle, method: 'POST', agent, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(JSON.stringify({ listing_id: LISTINGS.bike }));
      });
    // Warm the app up (JIT, pools) so the measure counts only what the forged tokens leave behind.
    for (let i = 0; i < 200; i++) await call(forged('warm-up-secret-0123456789', 100));
    collectGarbage();
    const before = process.memoryUsage().heapUsed;

    const statuses = new Map<number, number>();
    let sent = 0;
    const client = async () => {
      while (sent < 20_000) {
        // Half just under the 4096-character bound (their signature is checked), half over it.
        const status = await call(forged('not-the-secret-of-this-installation', sent++ % 2 === 0 ? 3900 : 6000));
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 8 }, client));
    collectGarbage();
    const grownMb = (process.memoryUsage().heapUsed - before) / 2 ** 20;

    assert.deepEqual([...statuses], [[401, 20_000]]);
    // Cached failures held the last 10 000 of these tokens (4-6 KB each, with their errors) here.
    assert.ok(grownMb < 10, `the heap grew by ${grownMb.toFixed(1)} MB`);
    assert.equal(t.souk.tokens.stats().cachedTokens, 0);
    const res = await t.toggle(USERS.amina, { listing_id: LISTINGS.bike });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(t.souk.tokens.stats().cachedTokens, 1);
  });

  it('a failed token is not cached (each try is verified again); a verified one is cached and not verified again', async () => {
    const t = await startTestSouk();
    const call = (token: string) => t.post(PATHS.toggle, { listing_id: 999 }, { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey });
    const start = t.souk.tokens.stats();

    const forgery = forged('not-the-secret-of-this-installation', 200);
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
