/**
 * Issue 26, finding 1, on a WordPress site's own tables (original/wordpress-seeded.sql on MariaDB),
 * with JWT_SECRET the site's, which is the Classified Listing plugin's public constant: a token
 * anyone signs with it for the administrator is refused; a token Souk issued at sign-in is
 * accepted by Souk and signed with the site's secret (the site's own routes accept it too); the
 * key of Souk's mark is kept in Souk's own table, not in the site's options.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { startTestSouk } from '../../helpers/souk.js';
import { mysqlReachable, SITE_PASSWORDS, wordpressDatabase } from '../../helpers/wordpress.js';

const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';
const PUBLIC_SECRET = 'jdkahiu99n23948234n2329339nc248239';
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const hs256 = (input: string) => createHmac('sha256', PUBLIC_SECRET).update(input).digest('base64url');

describe("a WordPress site's public JWT secret", { skip }, () => {
  for (const accept of ['false', 'true']) {
    it(`signs no token Souk accepts for the administrator (ACCEPT_WORDPRESS_TOKENS=${accept})`, async () => {
      const site = await wordpressDatabase();
      const t = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET: PUBLIC_SECRET, ACCEPT_WORDPRESS_TOKENS: accept }, null);
      const my = (token: string) =>
        t.app.inject({ method: 'GET', url: '/wp-json/rtcl/v1/my', headers: { 'x-api-key': t.apiKey, authorization: `Bearer ${token}` } });

      const iat = Math.floor(Date.now() / 1000);
      const head = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: '1', iat, exp: iat + 3600 })}`;
      const forged = await my(`${head}.${hs256(head)}`);
      assert.equal(forged.statusCode, 401, forged.body);
      assert.equal(forged.json().error_message, 'JWT signature verification failed.');

      const signIn = await t.post(
        '/wp-json/rtcl/v1/login',
        { username: 'alice', password: SITE_PASSWORDS.alice },
        { 'x-api-key': t.apiKey },
      );
      assert.equal(signIn.statusCode, 200, signIn.body);
      const issued = signIn.json().jwt_token as string;
      const [h, p, s] = issued.split('.');
      assert.equal(hs256(`${h}.${p}`), s, "signed with the site's secret");
      const me = await my(issued);
      assert.equal(me.statusCode, 200, me.body);
      assert.equal(me.json().username, 'alice');

      const [stored] = await site.query<{ n: number }>("select count(*) as n from wp_souk_settings where `key` = 'token_mac_key'");
      assert.equal(Number(stored!.n), 1);
      const [options] = await site.query<{ n: number }>("select count(*) as n from wp_options where option_name like '%mac%'");
      assert.equal(Number(options!.n), 0);
    });
  }
});
