/**
 * While PostgreSQL is unreachable, requests get 503 SERVICE_UNAVAILABLE within the statement
 * timeout and the process stays up; when it is back, Souk serves again by itself.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, TEST_POSTGRES_URL } from '../../helpers/database.js';
import { TcpProxy } from '../../helpers/tcp-proxy.js';
import { startTestSouk, type TestSouk } from '../../helpers/souk.js';
import { LISTINGS, USERS } from '../../helpers/fixtures.js';

const UNAVAILABLE = {
  status: 'error',
  error: 'SERVICE_UNAVAILABLE',
  code: '503',
  error_message: 'The service is temporarily unavailable. Please try again shortly.',
};
const STATEMENT_TIMEOUT_MS = 2000;

async function soukBehindProxy(): Promise<{ t: TestSouk; proxy: TcpProxy }> {
  const target = new URL(TEST_POSTGRES_URL!);
  const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
  await proxy.start();
  after(() => proxy.stop());
  // The test database's schema, reached through the proxy.
  const database = await freshDatabase();
  after(() => database.drop());
  const url = new URL(database.url);
  url.host = `127.0.0.1:${proxy.port}`;
  const t = await startTestSouk({
    DATABASE_URL: url.toString(),
    DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    DB_CONNECT_TIMEOUT_MS: '1000',
  });
  return { t, proxy };
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

describe('PostgreSQL outage', { skip: TEST_POSTGRES_URL ? false : 'needs TEST_DATABASE_URL=postgres://...' }, () => {
  it('answers 503 while the database refuses connections, then recovers without a restart', async () => {
    const { t, proxy } = await soukBehindProxy();
    assert.deepEqual((await t.toggle(USERS.amina, { listing_id: LISTINGS.bike })).json(), [101]);

    await proxy.stop();
    for (const call of [
      () => t.toggle(USERS.amina, { listing_id: LISTINGS.table }),
      () => t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'anyone?' }),
    ]) {
      const { value: res, ms } = await timed(call);
      assert.equal(res.statusCode, 503);
      assert.deepEqual(res.json(), UNAVAILABLE);
      assert.equal(res.headers['retry-after'], '1');
      assert.ok(ms < STATEMENT_TIMEOUT_MS, `answered in ${Math.round(ms)} ms`);
    }

    await proxy.start();
    let res = await t.toggle(USERS.amina, { listing_id: LISTINGS.table });
    for (let i = 0; i < 20 && res.statusCode !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await t.toggle(USERS.amina, { listing_id: LISTINGS.table });
    }
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), [101, 103]);
  });

  it('answers 503 within the statement timeout when the database stops answering', async () => {
    const { t, proxy } = await soukBehindProxy();
    assert.equal((await t.toggle(USERS.amina, { listing_id: LISTINGS.bike })).statusCode, 200);

    proxy.mode = 'blackhole';
    proxy.cutConnections();
    const { value: res, ms } = await timed(() => t.toggle(USERS.amina, { listing_id: LISTINGS.table }));
    assert.deepEqual(res.json(), UNAVAILABLE);
    assert.ok(ms < STATEMENT_TIMEOUT_MS + 500, `answered in ${Math.round(ms)} ms`);

    proxy.mode = 'forward';
    let ok = await t.toggle(USERS.amina, { listing_id: LISTINGS.table });
    for (let i = 0; i < 30 && ok.statusCode !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      ok = await t.toggle(USERS.amina, { listing_id: LISTINGS.table });
    }
    assert.deepEqual(ok.json(), [101, 103]);
  });
});
