/**
 * What one client address can hold of the API port (issue 26, finding 8), over real sockets on a
 * real listening server: with MAX_CONNECTIONS=30, idle connections opened from one address with a
 * GET /healthz each no longer lock everyone out (the address holds at most its share, another
 * client is served), idle connections that never carried a signed-in request are closed after
 * IDLE_UNAUTHENTICATED_TIMEOUT_MS (shortened here) while signed-in ones and event streams stay.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { USERS } from '../helpers/fixtures.js';
import { SseClient } from '../helpers/sse.js';
import { trustedProxy } from '../../src/http/plugins/connection-limits.js';

interface Held {
  socket: Socket;
  /** The head of the first answer, or '' when the server closed the connection unanswered. */
  head: string;
  closed: Promise<void>;
}

async function listening(env: Record<string, string>): Promise<{ t: TestSouk; port: number }> {
  const t = await startTestSouk({ RATE_LIMIT_PER_USER: '0', ...env });
  return { t, port: Number(new URL(await t.listen()).port) };
}

/** Opens a connection from `from`, sends `request` and waits for its answer's head (or the close). */
function hold(port: number, request: string, from = '127.0.0.1'): Promise<Held> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    let received = '';
    let answered = false;
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('error', () => {});
    socket.on('data', (d: Buffer) => {
      received += d.toString('latin1');
      if (!answered && received.includes('\r\n\r\n')) {
        answered = true;
        resolve({ socket, head: received, closed });
      }
    });
    socket.once('close', () => {
      if (!answered) resolve({ socket, head: '', closed });
    });
    socket.once('connect', () => socket.write(request));
    setTimeout(() => reject(new Error('no answer and no close within 10 s')), 10_000).unref();
  });
}

const healthz = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
const signedIn = (t: TestSouk) => {
  const auth = t.auth(USERS.amina);
  return `GET /wp-json/rtcl/v1/my/favourites HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth.authorization}\r\nX-API-KEY: ${auth['x-api-key']}\r\n\r\n`;
};
const isOpen = async (held: Held, ms: number) =>
  Promise.race([held.closed.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), ms))]);

describe('connections per client address', () => {
  it('with MAX_CONNECTIONS=30, 30 idle connections from one address hold only its share, and another client is served', async () => {
    const { port } = await listening({ MAX_CONNECTIONS: '30' });
    const held = await Promise.all(Array.from({ length: 30 }, () => hold(port, healthz)));
    const served = held.filter((h) => h.head.startsWith('HTTP/1.1 200'));
    assert.ok(
      served.every((h) => /connection: keep-alive/i.test(h.head)),
      'kept alive, as an attacker keeps them',
    );
    assert.equal(served.length, 7, 'a quarter of MAX_CONNECTIONS by default');
    assert.equal(held.filter((h) => h.head === '').length, 23, 'the others closed unanswered');
    const other = await hold(port, healthz, '127.0.0.2');
    assert.match(other.head, /^HTTP\/1\.1 200 /, 'another address is served');
    for (const h of [...held, other]) h.socket.destroy();
  });

  it('MAX_CONNECTIONS_PER_ADDRESS sets the cap; a closed connection frees its place', async () => {
    const { port } = await listening({ MAX_CONNECTIONS_PER_ADDRESS: '2' });
    const [a, b] = [await hold(port, healthz), await hold(port, healthz)];
    assert.match(a.head + b.head, /^HTTP\/1\.1 200 [\s\S]*HTTP\/1\.1 200 /);
    assert.equal((await hold(port, healthz)).head, '', 'the third is closed unanswered');
    a.socket.destroy();
    await a.closed;
    let again = await hold(port, healthz);
    // The server sees the close a moment after the client.
    for (let i = 0; i < 50 && again.head === ''; i++) again = await hold(port, healthz);
    assert.match(again.head, /^HTTP\/1\.1 200 /);
    b.socket.destroy();
    again.socket.destroy();
  });

  it('connections from a TRUST_PROXY address are not capped: they are every client behind the proxy', async () => {
    const { port } = await listening({ MAX_CONNECTIONS_PER_ADDRESS: '2', TRUST_PROXY: '127.0.0.0/8' });
    const held = await Promise.all(Array.from({ length: 5 }, () => hold(port, healthz)));
    assert.equal(held.filter((h) => h.head.startsWith('HTTP/1.1 200')).length, 5);
    for (const h of held) h.socket.destroy();
    const trusted = trustedProxy(['10.0.0.0/8', '::1']);
    assert.deepEqual(['10.1.2.3', '::ffff:10.1.2.3', '::1', '11.0.0.1', '::2', 'nonsense'].map(trusted), [
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe('idle connections that never signed in', () => {
  it('are closed after IDLE_UNAUTHENTICATED_TIMEOUT_MS; a signed-in one stays open for KEEP_ALIVE_TIMEOUT_MS', async () => {
    const { t, port } = await listening({ IDLE_UNAUTHENTICATED_TIMEOUT_MS: '300' });
    const anonymous = await hold(port, healthz);
    const member = await hold(port, signedIn(t));
    assert.match(anonymous.head, /^HTTP\/1\.1 200 [\s\S]*connection: keep-alive/i);
    assert.match(member.head, /^HTTP\/1\.1 200 [\s\S]*connection: keep-alive/i);
    // KEEP_ALIVE_TIMEOUT_MS is 72 s: closed long before.
    assert.equal(await isOpen(anonymous, 5000), false, 'the anonymous connection is closed');
    assert.equal(await isOpen(member, 1500), true, 'the signed-in connection is still open');
    // It stays signed in: a public request on it does not make it anonymous again.
    member.socket.write(healthz);
    assert.equal(await isOpen(member, 1000), true);
    member.socket.destroy();
  });

  it('an event stream outlives the idle time and still gets its events', async () => {
    const { t, port } = await listening({ IDLE_UNAUTHENTICATED_TIMEOUT_MS: '300', EVENTS_HEARTBEAT_MS: '1000' });
    const stream = await SseClient.open(`http://127.0.0.1:${port}/wp-json/rtcl/v1/my/events`, t.auth(USERS.youssef));
    assert.equal(stream.status, 200, stream.body);
    await stream.waitComments(2, 5000);
    assert.equal(stream.closed, false);
    const started = await t.start(USERS.amina, { listing_id: 101, text: 'still there?' });
    assert.equal(started.statusCode, 200);
    const events = await stream.take(2);
    assert.deepEqual(
      events.map((e) => e.event),
      ['conversation.new', 'message.new'],
    );
    stream.close();
  });
});
