/**
 * ACCEPT_WORDPRESS_TOKENS: tokens a WordPress site with Classified Listing issued carry the
 * plugin's constant `sub` ("123456789") and the user's login in `name` (original/01-login.txt's
 * Authorization headers decode to {"sub":"123456789","name":"alice","iat":...,"exp":...}).
 * By default refused as any token Souk did not issue (a bad signature: it lacks Souk's mark, see
 * forged-tokens.test.ts); with the setting, accepted for the user whose login `name` holds, and
 * refused for an unknown login. Souk's own tokens work either way.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { USERS } from '../helpers/fixtures.js';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A token as the plugin makes it: HS256, `sub` its constant, `name` the login, a day's lifetime. */
function wordpressToken(secret: string, login: string): string {
  const iat = Math.floor(Date.now() / 1000);
  const head = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: '123456789', name: login, iat, exp: iat + 86_400 })}`;
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
}

const me = (t: TestSouk, token: string) =>
  t.app.inject({ method: 'GET', url: '/wp-json/rtcl/v1/my', headers: { 'x-api-key': t.apiKey, authorization: `Bearer ${token}` } });

const NOT_LOGGED_IN = { code: 'FORBIDDEN', message: 'You are not logged in.' };
const BAD_SIGNATURE = { status: 'error', error: 'INVALID_TOKEN', code: '401', error_message: 'JWT signature verification failed.' };

describe('tokens a WordPress site issued', () => {
  it('are refused by default, as a token Souk did not issue', async (ctx) => {
    const t = await startTestSouk();
    ctx.after(() => t.close());
    assert.equal(t.config.acceptWordpressTokens, false);
    const res = await me(t, wordpressToken(t.jwtSecret, 'amina'));
    assert.equal(res.statusCode, 401, res.body);
    assert.deepEqual(res.json(), BAD_SIGNATURE);
    const toggle = await t.post(
      '/wp-json/rtcl/v1/my/favourites',
      { listing_id: 101 },
      { 'x-api-key': t.apiKey, authorization: `Bearer ${wordpressToken(t.jwtSecret, 'amina')}` },
    );
    assert.equal(toggle.statusCode, 401, toggle.body);
    assert.equal((await t.souk.store.db.selectFrom('favourites').select('id').execute()).length, 0);
  });

  it('with ACCEPT_WORDPRESS_TOKENS=true, are the user whose login `name` holds; an unknown or disabled login is refused', async (ctx) => {
    const t = await startTestSouk({ ACCEPT_WORDPRESS_TOKENS: 'true' });
    ctx.after(() => t.close());
    const ok = await me(t, wordpressToken(t.jwtSecret, 'amina'));
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().id, USERS.amina);
    assert.equal(ok.json().username, 'amina');
    // As the site's collation compares logins.
    const upper = await me(t, wordpressToken(t.jwtSecret, 'AMINA'));
    assert.equal(upper.statusCode, 200, upper.body);
    assert.equal(upper.json().id, USERS.amina);

    const toggle = await t.post(
      '/wp-json/rtcl/v1/my/favourites',
      { listing_id: 101 },
      { 'x-api-key': t.apiKey, authorization: `Bearer ${wordpressToken(t.jwtSecret, 'amina')}` },
    );
    assert.equal(toggle.statusCode, 200, toggle.body);
    assert.deepEqual(toggle.json(), [101]);

    for (const login of ['nobody', 'amina@example.com', 'ghost', '']) {
      const res = await me(t, wordpressToken(t.jwtSecret, login));
      assert.equal(res.statusCode, 403, `${login}: ${res.body}`);
      assert.deepEqual(res.json(), NOT_LOGGED_IN);
    }
    // Signed with another secret: the signature decides first.
    const forged = await me(t, wordpressToken('not-the-operators-secret-0123456789', 'amina'));
    assert.equal(forged.statusCode, 401, forged.body);
    assert.equal(forged.json().error, 'INVALID_TOKEN');
    // Souk's own tokens are unchanged.
    const own = await me(t, t.token(USERS.youssef, { login: 'youssef' }));
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(own.json().id, USERS.youssef);
  });
});
