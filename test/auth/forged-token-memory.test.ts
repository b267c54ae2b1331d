/**
 * Forged tokens never stay in memory (issue 17: H1): ten thousand distinct long ones, sent over a
 * real socket, leave the heap where it was and the verified-token cache empty. Whether a token is
 * refused does not depend on the database: this runs once, on SQLite.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestSouk, PATHS } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { paddedForgery } from '../helpers/tokens.js';

/** A full collection, so heapUsed measures what is retained (--expose-gc switched on at run time). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('forged tokens and memory', () => {
  it('10 000 distinct long forged tokens leave the heap bounded and the cache empty; the server still answers', async () => {
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
    for (let i = 0; i < 200; i++) await call(paddedForgery('warm-up-secret-0123456789', USERS.amina, 100));
    collectGarbage();
    const before = process.memoryUsage().heapUsed;

    const statuses = new Map<number, number>();
    let sent = 0;
    const client = async () => {
      while (sent < 10_000) {
        // Half just under the 4096-character bound (their signature is checked), half over it.
        const status = await call(paddedForgery('not-the-secret-of-this-installation', USERS.amina, sent++ % 2 === 0 ? 3900 : 6000));
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 8 }, client));
    collectGarbage();
    const grownMb = (process.memoryUsage().heapUsed - before) / 2 ** 20;

    assert.deepEqual([...statuses], [[401, 10_000]]);
    // Cached failures held the last 10 000 such tokens (4-6 KB each, with their errors) here: 50 MB for these.
    assert.ok(grownMb < 10, `the heap grew by ${grownMb.toFixed(1)} MB`);
    assert.equal(t.souk.tokens.stats().cachedTokens, 0);
    const res = await t.toggle(USERS.amina, { listing_id: LISTINGS.bike });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(t.souk.tokens.stats().cachedTokens, 1);
  });
});
