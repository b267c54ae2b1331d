/**
 * Sign-in on a WordPress site's own tables (docs/hardening.md, "Second security round"): the site's
 * collation reads a login without case or accents, so every spelling that finds an account spends
 * that account's budget (4); a NUL or half a surrogate pair in a name or password is a refusal like
 * any, counted, never a 500 (7). Through the real app on MariaDB.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, type TestSouk } from '../../helpers/souk.js';
import { mysqlReachable, SITE_PASSWORDS, wordpressDatabase } from '../../helpers/wordpress.js';

const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';
const JWT_SECRET = 'souk-sign-in-test-secret-0123456789abcdef';
const LOGIN = '/wp-json/rtcl/v1/login';
const PASSWORD = SITE_PASSWORDS.alice;
const INVALID = {
  status: 'error',
  error: 'invalid_credentials',
  code: '400',
  message: 'The username or password you entered is incorrect.',
};

async function site(env: Record<string, string> = {}) {
  const db = await wordpressDatabase('wordpress-seeded.sql');
  return startTestSouk({ DATABASE_URL: db.url, JWT_SECRET, LOGIN_FAILURES_PER_ADDRESS: '1000', ...env }, null);
}

const login = (t: TestSouk, username: string, password: string) =>
  t.app.inject({
    method: 'POST',
    url: LOGIN,
    payload: { username, password },
    headers: { 'x-api-key': t.apiKey },
    remoteAddress: '198.51.100.9',
  });

describe('sign-in on the site tables', { skip }, () => {
  it("spends the account's budget whichever spelling the collation matches it by", async () => {
    const t = await site({ LOGIN_FAILURES_PER_USERNAME: '5' });
    for (const name of ['alíce', 'ÁLICE', 'Alicé', 'alice', 'ålice']) assert.equal((await login(t, name, 'wrong')).statusCode, 400, name);
    assert.equal((await login(t, 'alice', PASSWORD)).statusCode, 429);
  });

  it('refuses a NUL or half a surrogate pair in the username or password as wrong credentials, counted', async () => {
    const t = await site({ LOGIN_FAILURES_PER_USERNAME: '5', LOGIN_FAILURES_PER_ADDRESS: '4' });
    for (const [username, password] of [
      ['ali\0ce', PASSWORD],
      ['alice', `${PASSWORD}\0`],
      ['ali\uD800ce', PASSWORD],
      ['alice', `\uDC00${PASSWORD}`],
    ]) {
      const res = await login(t, username!, password!);
      assert.equal(res.statusCode, 400, JSON.stringify(username));
      assert.deepEqual(res.json(), INVALID);
    }
    assert.equal((await login(t, 'alice', PASSWORD)).statusCode, 429, "the address's four failures were counted");
  });
});
