/**
 * Failed authentications per client address (docs/hardening.md, RATE_LIMIT_AUTH_FAILURES): a
 * missing or wrong API key or a bad token is counted against the client's address (IPv6: its /64);
 * over the budget every request from it gets 429 shape B with Retry-After before any credential is
 * read. X-Forwarded-For counts only from a proxy named by TRUST_PROXY. Without Redis the addresses
 * are held in a bounded map; with Redis they are shared, and RATE_LIMIT_REDIS_FAILURE decides what
 * happens while Redis does not answer. Every request goes over a real socket to a listening server.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startTestSouk, PATHS, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS, marketplace } from '../helpers/fixtures.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { REDIS_URL, redisPrefix, redisSkip } from '../helpers/redis.js';
import { addressGroup } from '../../src/auth/client-address.js';
import { MemoryCounter } from '../../src/auth/counters.js';
import { loadConfig, ConfigError } from '../../src/config.js';

/** /metrics answers on the API port only to this token (it is off there otherwise). */
const METRICS_TOKEN = 'metrics-token-of-the-throttle-tests';

const TOO_MANY_FAILURES = {
  status: 'error',
  error: 'TOO_MANY_REQUESTS',
  code: '429',
  error_message: 'Too many failed authentication attempts from this address. Retry after the number of seconds in the Retry-After header.',
};
const UNAVAILABLE = {
  status: 'error',
  error: 'SERVICE_UNAVAILABLE',
  code: '503',
  error_message: 'The service is temporarily unavailable. Please try again shortly.',
};

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

interface Sender {
  /** Connect from this loopback address (127.0.0.0/8 all reach the server). */
  from?: string;
  forwardedFor?: string;
}

/** A listening Souk and a POST to it over a fresh connection. */
async function served(env: Record<string, string>, options: Parameters<typeof startTestSouk>[2] = {}) {
  const t = await startTestSouk(env, marketplace(), options);
  const base = new URL(await t.listen());
  const post = (
    path: string,
    headers: Record<string, string>,
    sender: Sender = {},
    body: unknown = { listing_id: LISTINGS.bike, text: 'hi' },
  ) =>
    new Promise<Reply>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const all: Record<string, string> = {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(payload)),
        ...headers,
      };
      if (sender.forwardedFor) all['x-forwarded-for'] = sender.forwardedFor;
      const req = request(
        { host: base.hostname, port: base.port, path, method: 'POST', headers: all, localAddress: sender.from, agent: false },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  const good = (sender?: Sender) => post(PATHS.toggle, t.auth(USERS.amina), sender, { listing_id: LISTINGS.bike });
  const badToken = (sender?: Sender) => post(PATHS.toggle, { 'x-api-key': t.apiKey, authorization: `Bearer ${forged(t)}` }, sender);
  const wrongKey = (sender?: Sender) => post(PATHS.start, { ...t.auth(USERS.amina), 'x-api-key': 'not-the-key' }, sender);
  const noKey = (sender?: Sender) => post(PATHS.start, { authorization: `Bearer ${t.token(USERS.amina)}` }, sender);
  return { t, base, post, good, badToken, wrongKey, noKey };
}

/** A well-formed token signed with the wrong secret: verifying it means checking its signature. */
function forged(t: TestSouk): string {
  const signed = t.token(USERS.amina);
  return `${signed.slice(0, signed.lastIndexOf('.'))}.${Buffer.alloc(32, 7).toString('base64url')}`;
}

function assertTooManyFailures(reply: Reply, windowS = 60): void {
  assert.equal(reply.status, 429);
  assert.deepEqual(reply.body, TOO_MANY_FAILURES);
  const retryAfter = Number(reply.headers['retry-after']);
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowS,
    `Retry-After ${String(reply.headers['retry-after'])}`,
  );
}

describe('failed authentications per client address', () => {
  it('over RATE_LIMIT_AUTH_FAILURES the address gets 429 with Retry-After, before any credential is read', async () => {
    const s = await served({ RATE_LIMIT_AUTH_FAILURES: '3' });
    assert.equal((await s.good()).status, 200, 'a success is not counted');
    assert.equal((await s.wrongKey()).body.error, 'INVALID_API_KEY');
    assert.equal((await s.noKey()).body.error, 'MISSING_X_API_KEY_HEADER');
    assert.equal((await s.badToken()).body.error, 'INVALID_TOKEN');

    const checks = s.t.souk.tokens.stats().signatureChecks;
    assertTooManyFailures(await s.badToken());
    assertTooManyFailures(await s.wrongKey());
    // The address is refused whatever it sends, a valid request included: nothing is read to tell.
    assertTooManyFailures(await s.good());
    assert.equal(s.t.souk.tokens.stats().signatureChecks, checks, 'no token was verified for a refused address');

    // Another client address is not affected.
    assert.equal((await s.good({ from: '127.0.0.2' })).status, 200);
    assert.equal((await s.badToken({ from: '127.0.0.2' })).status, 401);
  });

  it('the address is served again once the window has passed', async () => {
    const s = await served({ RATE_LIMIT_AUTH_FAILURES: '1', RATE_LIMIT_WINDOW_MS: '3000' });
    assert.equal((await s.badToken()).status, 401);
    const refused = await s.badToken();
    assertTooManyFailures(refused, 3);
    await new Promise((r) => setTimeout(r, Number(refused.headers['retry-after']) * 1000 + 100));
    assert.equal((await s.good()).status, 200);
  });

  it('does not count genuine callers who are refused: no token on the toggle, the REST switch', async () => {
    const s = await served({ RATE_LIMIT_AUTH_FAILURES: '1' });
    for (let i = 0; i < 3; i++) {
      const loggedOut = await s.post(PATHS.toggle, { 'x-api-key': s.t.apiKey }, {}, { listing_id: LISTINGS.bike });
      assert.deepEqual([loggedOut.status, loggedOut.body.code], [403, 'FORBIDDEN']);
    }
    await s.t.souk.store.settings.set('rest_api', 'false');
    await s.t.souk.settings.refresh();
    for (let i = 0; i < 3; i++) assert.equal((await s.post(PATHS.start, s.t.auth(USERS.amina))).status, 403);
    assert.equal((await s.good()).status, 200);
  });

  it('RATE_LIMIT_AUTH_FAILURES=0 turns it off', async () => {
    const s = await served({ RATE_LIMIT_AUTH_FAILURES: '0' });
    for (let i = 0; i < 150; i++) assert.equal((await s.badToken()).status, 401);
    assert.equal((await s.good()).status, 200);
  });
});

describe('the client address', () => {
  it('ignores X-Forwarded-For by default: a client cannot pick a fresh address per request', async () => {
    const s = await served({ RATE_LIMIT_AUTH_FAILURES: '2' });
    assert.equal((await s.badToken({ forwardedFor: '203.0.113.1' })).status, 401);
    assert.equal((await s.badToken({ forwardedFor: '203.0.113.2' })).status, 401);
    assertTooManyFailures(await s.badToken({ forwardedFor: '203.0.113.3' }));
  });

  it('ignores X-Forwarded-For from a proxy that TRUST_PROXY does not name', async () => {
    const s = await served({ RATE_LIMIT_AUTH_FAILURES: '2', TRUST_PROXY: '10.0.0.0/8,::1' });
    assert.equal((await s.badToken({ forwardedFor: '203.0.113.1' })).status, 401);
    assert.equal((await s.badToken({ forwardedFor: '203.0.113.2' })).status, 401);
    assertTooManyFailures(await s.badToken({ forwardedFor: '203.0.113.3' }));
  });

  it('takes X-Forwarded-For from a trusted proxy, and groups IPv6 addresses by /64', async () => {
    const s = await served({ RATE_LIMIT_AUTH_FAILURES: '2', TRUST_PROXY: '127.0.0.1' });
    assert.equal((await s.badToken({ forwardedFor: '2001:db8:1:2::1' })).status, 401);
    assert.equal((await s.badToken({ forwardedFor: '2001:db8:1:2:ffff:ffff:ffff:ffff' })).status, 401);
    assertTooManyFailures(await s.badToken({ forwardedFor: '2001:0db8:0001:0002::99' }));
    assertTooManyFailures(await s.good({ forwardedFor: '2001:db8:1:2:abcd::1' }));
    // The next /64, an IPv4 client behind the same proxy, and the proxy itself are apart.
    assert.equal((await s.good({ forwardedFor: '2001:db8:1:3::1' })).status, 200);
    assert.equal((await s.badToken({ forwardedFor: '198.51.100.7' })).status, 401);
    assert.equal((await s.good()).status, 200);
  });

  it('addressGroup: IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by /64 in one spelling', () => {
    assert.equal(addressGroup('192.0.2.1'), '192.0.2.1');
    assert.equal(addressGroup('::ffff:192.0.2.1'), '192.0.2.1');
    assert.equal(addressGroup('::FFFF:192.0.2.1'), '192.0.2.1');
    assert.equal(addressGroup('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(addressGroup('2001:0DB8:0000:0000:ffff::'), '2001:db8:0:0::/64');
    assert.equal(addressGroup('::1'), '0:0:0:0::/64');
    assert.equal(addressGroup('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(addressGroup('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
    assert.equal(addressGroup(''), '');
  });

  it('TRUST_PROXY accepts true, false or addresses and CIDRs, and refuses anything else', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.1,::1,fd00::/8' }).trustProxy, [
      '10.0.0.0/8',
      '192.0.2.1',
      '::1',
      'fd00::/8',
    ]);
    for (const bad of ['yes', '10.0.0.0/33', 'fd00::/129', 'proxy.example', '10.0.0.1/8/8', ',']) {
      assert.throws(
        () => loadConfig({ TRUST_PROXY: bad }),
        (err: Error) => err instanceof ConfigError && err.message.startsWith('TRUST_PROXY'),
        bad,
      );
    }
  });
});

describe('the tracked addresses (no REDIS_URL)', () => {
  it('beyond RATE_LIMIT_TRACKED_ADDRESSES the oldest address is forgotten', async () => {
    const s = await served({ RATE_LIMIT_AUTH_FAILURES: '1', RATE_LIMIT_TRACKED_ADDRESSES: '2', TRUST_PROXY: '127.0.0.1' });
    const [a, b, c] = ['203.0.113.1', '203.0.113.2', '203.0.113.3'].map((forwardedFor) => ({ forwardedFor }));
    await s.badToken(a);
    await s.badToken(b);
    assertTooManyFailures(await s.badToken(a));
    assertTooManyFailures(await s.badToken(b));
    await s.badToken(c); // a third address: a's window, the oldest, goes
    assert.equal((await s.good(a)).status, 200);
    assertTooManyFailures(await s.badToken(b));
    assertTooManyFailures(await s.badToken(c));
  });

  it('the map never holds more than its capacity, whatever the number of addresses', async () => {
    const counter = new MemoryCounter(60_000, { capacity: 100 });
    after(() => counter.close());
    for (let i = 0; i < 10_000; i++) await counter.hit(`address:10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, 60_000);
    assert.equal(counter.size, 100);
    assert.equal((await counter.peek('address:10.0.39.15')).count, 1, 'the newest are kept');
    assert.equal((await counter.peek('address:10.0.0.0')).count, 0, 'the oldest are gone');
  });
});

describe('failed authentications through Redis', { skip: redisSkip }, () => {
  it('two instances share the count of an address', async () => {
    const env = { RATE_LIMIT_AUTH_FAILURES: '3', REDIS_URL, RATE_LIMIT_REDIS_PREFIX: redisPrefix() };
    const a = await served(env);
    const b = await served(env);
    assert.equal((await a.badToken()).status, 401);
    assert.equal((await b.wrongKey()).status, 401);
    assert.equal((await a.noKey()).status, 401);
    assertTooManyFailures(await b.good());
    assertTooManyFailures(await a.good());
    assert.equal((await b.good({ from: '127.0.0.2' })).status, 200);
  });

  async function behindProxy(env: Record<string, string>) {
    const target = new URL(REDIS_URL);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
    await proxy.start();
    after(() => proxy.stop());
    const lines: Array<{ level: number; msg: string }> = [];
    const s = await served(
      {
        RATE_LIMIT_AUTH_FAILURES: '2',
        RATE_LIMIT_PER_USER: '1000',
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        RATE_LIMIT_REDIS_PREFIX: redisPrefix(),
        LOG_LEVEL: 'warn',
        METRICS_TOKEN,
        ...env,
      },
      { logDestination: { write: (line) => lines.push(JSON.parse(line) as { level: number; msg: string }) } },
    );
    const storeUp = async () => {
      const text = await (await fetch(new URL('/metrics', s.base), { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      return /^souk_rate_limit_store_up (\d)$/m.exec(text)?.[1];
    };
    const outageLines = () => lines.filter((l) => l.msg.startsWith('rate limit store (Redis)')).map((l) => l.msg);
    return { s, proxy, storeUp, outageLines };
  }

  it('RATE_LIMIT_REDIS_FAILURE=closed answers 503 while Redis is unreachable, logged once per outage and in the metrics', async () => {
    const { s, proxy, storeUp, outageLines } = await behindProxy({ RATE_LIMIT_REDIS_FAILURE: 'closed' });
    assert.equal((await s.good()).status, 200);
    assert.equal(await storeUp(), '1');

    await proxy.stop();
    for (let i = 0; i < 10; i++) {
      const refused = await (i % 2 ? s.good() : s.badToken());
      assert.equal(refused.status, 503);
      assert.deepEqual(refused.body, UNAVAILABLE);
      assert.equal(refused.headers['retry-after'], '1');
    }
    assert.equal(await storeUp(), '0');
    assert.deepEqual(outageLines(), ['rate limit store (Redis) unavailable: requests are refused with 503 until it answers']);

    await proxy.start();
    let status = 503;
    for (let i = 0; i < 100 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await s.good()).status;
    }
    assert.equal(status, 200, 'served again once Redis answers');
    assert.equal(await storeUp(), '1');
    assert.deepEqual(outageLines(), [
      'rate limit store (Redis) unavailable: requests are refused with 503 until it answers',
      'rate limit store (Redis) answers again: requests are counted',
    ]);
  });

  it('RATE_LIMIT_REDIS_FAILURE=open (the default) lets requests through uncounted, logged once per outage', async () => {
    const { s, proxy, storeUp, outageLines } = await behindProxy({});
    await proxy.stop();
    for (let i = 0; i < 5; i++) assert.equal((await s.badToken()).status, 401, 'failures answered, not counted');
    assert.equal((await s.good()).status, 200);
    assert.equal(await storeUp(), '0');
    assert.deepEqual(outageLines(), ['rate limit store (Redis) unavailable: requests are let through uncounted until it answers']);
  });
});
