import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { startTestSouk, PATHS } from '../helpers/souk.js';

const APP = 'https://app.souk.example';

const preflight = (origin: string) => ({
  method: 'OPTIONS' as const,
  url: PATHS.toggle,
  headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,x-api-key,content-type' },
});

describe('CORS', () => {
  it('is off by default: no CORS headers, preflight is not answered', async () => {
    const t = await startTestSouk();
    const res = await t.post(PATHS.toggle, { listing_id: LISTINGS.bike }, { ...t.auth(USERS.amina), origin: APP });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
    const pre = await t.app.inject(preflight(APP));
    assert.equal(pre.statusCode, 404);
    assert.equal(pre.headers['access-control-allow-origin'], undefined);
  });

  it('allows the origins of CORS_ORIGINS, and only those', async () => {
    const t = await startTestSouk({ CORS_ORIGINS: `${APP}, http://localhost:5173` });
    const pre = await t.app.inject(preflight(APP));
    assert.equal(pre.statusCode, 204);
    assert.equal(pre.headers['access-control-allow-origin'], APP);
    assert.match(String(pre.headers['access-control-allow-headers']), /X-API-KEY/i);
    assert.match(String(pre.headers['access-control-allow-headers']), /Authorization/i);
    assert.match(String(pre.headers['access-control-allow-methods']), /POST/);

    const ok = await t.post(PATHS.toggle, { listing_id: LISTINGS.bike }, { ...t.auth(USERS.amina), origin: 'http://localhost:5173' });
    assert.equal(ok.headers['access-control-allow-origin'], 'http://localhost:5173');
    assert.match(String(ok.headers['access-control-expose-headers']), /X-Request-Id/i);
    // Error replies carry the header too, so a browser client can read the error body.
    const refused = await t.post(PATHS.toggle, { listing_id: LISTINGS.bike }, { 'x-api-key': 'wrong', origin: APP });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.headers['access-control-allow-origin'], APP);

    for (const origin of ['https://evil.example', 'https://app.souk.example.evil.example', 'http://app.souk.example']) {
      const res = await t.post(PATHS.toggle, { listing_id: LISTINGS.bike }, { ...t.auth(USERS.amina), origin });
      assert.equal(res.headers['access-control-allow-origin'], undefined, origin);
      assert.equal((await t.app.inject(preflight(origin))).headers['access-control-allow-origin'], undefined, origin);
    }
  });
});
