/**
 * Issue 26, finding 1: on a WordPress site the JWT secret is the Classified Listing plugin's
 * public constant, so anyone can sign a token with it. Souk accepts only tokens it issued (their
 * `jti` is its mark, made with token_mac_key): a token signed with the secret alone is refused as
 * a bad signature and counted as a failed authentication, whatever ACCEPT_WORDPRESS_TOKENS says
 * (which lets in the site's own tokens, `sub` "123456789", and nothing else).
 * The same on a WordPress site's tables: test/store/mysql/forged-tokens.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { ImportDocument } from '../../src/cli/import-document.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';

/** The plugin's `Rtcl::getApiSecret()`: every site's JWT secret. */
const PUBLIC_SECRET = 'jdkahiu99n23948234n2329339nc248239';
const BAD_SIGNATURE = { status: 'error', error: 'INVALID_TOKEN', code: '401', error_message: 'JWT signature verification failed.' };

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

/** What anyone can make: HS256 over any claims with the public secret. */
export function forged(claims: Record<string, unknown>, secret = PUBLIC_SECRET): string {
  const head = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(claims)}`;
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
}

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as Record<string, unknown>;

function users(): ImportDocument {
  // alice's WordPress hash of 'alice-pass-123' (original/wordpress-seeded.sql).
  return {
    users: [
      { id: 1, login: 'admin', email: 'admin@example.test' },
      {
        id: 2,
        login: 'alice',
        email: 'alice@example.test',
        password_hash: '$wp$2y$10$lri.9y2Sj3KJYPnRzfLDgepshT1ANxpqPBrX3eQ7wAuJ2Al17H/Yi',
      },
    ],
  };
}

const my = (t: TestSouk, token: string, ip = '192.0.2.7') =>
  t.app.inject({
    method: 'GET',
    url: '/wp-json/rtcl/v1/my',
    headers: { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey },
    remoteAddress: ip,
  });

async function signIn(t: TestSouk): Promise<string> {
  const res = await t.post('/wp-json/rtcl/v1/login', { username: 'alice', password: 'alice-pass-123' }, { 'x-api-key': t.apiKey });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().jwt_token as string;
}

describe("tokens signed with the site's public secret", () => {
  for (const accept of ['false', 'true']) {
    it(`are refused as a bad signature and counted as failed authentications (ACCEPT_WORDPRESS_TOKENS=${accept})`, async () => {
      const t = await startTestSouk({ JWT_SECRET: PUBLIC_SECRET, ACCEPT_WORDPRESS_TOKENS: accept, RATE_LIMIT_AUTH_FAILURES: '3' }, users());
      const issued = await signIn(t);
      // Souk's token is signed with the site's secret, so the site's own routes accept it too.
      const [head, payload, signature] = issued.split('.');
      assert.equal(createHmac('sha256', PUBLIC_SECRET).update(`${head}.${payload}`).digest('base64url'), signature);
      assert.equal((await my(t, issued)).json().id, 2);

      const iat = now();
      const attempts = [
        forged({ sub: '1', iat, exp: iat + 3600 }),
        forged({ sub: '1', name: 'admin', iat, exp: iat + 3600, jti: 'x' }),
        // Souk's mark copied from a token it issued onto other claims.
        forged({ ...claimsOf(issued), sub: '1', name: 'admin' }),
      ];
      for (const token of attempts) {
        const res = await my(t, token);
        assert.equal(res.statusCode, 401, res.body);
        assert.deepEqual(res.json(), BAD_SIGNATURE);
      }
      // Three failures from this address: the next request is refused, a good one too.
      assert.equal((await my(t, issued)).statusCode, 429);
      assert.equal((await my(t, issued, '192.0.2.8')).statusCode, 200);
    });
  }

  it("ACCEPT_WORDPRESS_TOKENS lets in the site's own tokens (sub 123456789), and no other forged token", async () => {
    const t = await startTestSouk({ JWT_SECRET: PUBLIC_SECRET, ACCEPT_WORDPRESS_TOKENS: 'true' }, users());
    const iat = now();
    const site = await my(t, forged({ sub: '123456789', name: 'alice', iat, exp: iat + 3600 }));
    assert.equal(site.statusCode, 200, site.body);
    assert.equal(site.json().id, 2);
    assert.equal((await my(t, forged({ sub: '2', name: 'alice', iat, exp: iat + 3600 }))).statusCode, 401);
  });

  it('a token Souk issued is refused once its claims no longer match its mark, or under another mark key', async () => {
    const t = await startTestSouk({}, users());
    const issued = t.token(2, { login: 'alice' });
    assert.equal((await my(t, issued)).statusCode, 200);
    const { exp } = claimsOf(issued) as { exp: number };
    assert.equal((await my(t, forged({ ...claimsOf(issued), exp: exp + 60 }, t.jwtSecret))).statusCode, 401);
    const other = await startTestSouk({ JWT_SECRET: t.jwtSecret }, users());
    assert.deepEqual((await my(other, issued)).json(), BAD_SIGNATURE);
  });

  it("warns at start when the JWT secret is the plugin's public one, without writing it", async () => {
    const lines: string[] = [];
    await startTestSouk({ JWT_SECRET: PUBLIC_SECRET, LOG_LEVEL: 'info' }, users(), {
      logDestination: { write: (line) => lines.push(line) },
    });
    const warned = lines.filter((line) => line.includes("the Classified Listing plugin's public secret"));
    assert.equal(warned.length, 1, lines.join(''));
    assert.equal(JSON.parse(warned[0] as string).level, 40);
    assert.ok(!lines.join('').includes(PUBLIC_SECRET));

    const quiet: string[] = [];
    await startTestSouk({ LOG_LEVEL: 'info' }, users(), { logDestination: { write: (line) => quiet.push(line) } });
    assert.ok(!quiet.some((line) => line.includes('public secret')));
  });
});
