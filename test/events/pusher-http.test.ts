/**
 * The Pusher sender's requests (src/events/pusher-http.ts) on a plain HTTP server: one after the
 * other they share one kept-alive connection; a kept-alive connection the server closed without
 * answering is tried once more on a new one, and a request refused or unanswered fails as the
 * sender expects (status and answer, or no answer).
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import Pusher from 'pusher';
import { triggerBatch, type PusherTarget } from '../../src/events/pusher-http.js';

const EVENT = { channel: 'chat-user-1', name: 'message.new', data: '{}' };

/** A server that hands each request, and the connection's number, to `answer`. */
async function server(answer: (req: IncomingMessage, res: ServerResponse, connection: number) => void) {
  const connections = new Map<Socket, number>();
  const seen: { connection: number; path: string }[] = [];
  const s = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const connection = connections.get(req.socket)!;
      seen.push({ connection, path: req.url ?? '' });
      answer(req, res, connection);
    });
  });
  s.on('connection', (socket) => connections.set(socket, connections.size + 1));
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  after(() => {
    s.closeAllConnections();
    s.close();
  });
  const { port } = s.address() as AddressInfo;
  const app = { appId: '7', key: 'k', secret: 's', cluster: null, host: '127.0.0.1', port, useTLS: false };
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  after(() => agent.destroy());
  const target: PusherTarget = {
    app,
    agent,
    client: new Pusher({ appId: '7', key: 'k', secret: 's', host: '127.0.0.1', port: String(port) }),
  };
  return { target, seen };
}

describe('Pusher requests', () => {
  it('share one kept-alive connection, signed, to batch_events', async () => {
    const { target, seen } = await server((_req, res) => res.end('{}'));
    await triggerBatch(target, [EVENT], 5000);
    await triggerBatch(target, [EVENT], 5000);
    assert.deepEqual(
      seen.map((r) => r.connection),
      [1, 1],
    );
    assert.match(
      seen[0]!.path,
      /^\/apps\/7\/batch_events\?auth_key=k&auth_timestamp=\d+&auth_version=1\.0&body_md5=[0-9a-f]{32}&auth_signature=[0-9a-f]{64}$/,
    );
  });

  it('go again on a new connection when a kept-alive one is closed without an answer', async () => {
    const { target, seen } = await server((req, res, connection) => {
      // The first connection's second request: closed as a server closes an idle connection.
      if (connection === 1 && seen.length === 2) req.socket.destroy();
      else res.end('{}');
    });
    await triggerBatch(target, [EVENT], 5000);
    await triggerBatch(target, [EVENT], 5000);
    assert.deepEqual(
      seen.map((r) => r.connection),
      [1, 1, 2],
    );
  });

  it("fail with Pusher's status and answer, or after the timeout without one", async () => {
    const { target } = await server((req, res) => {
      if (req.url?.includes('body_md5')) res.writeHead(413).end('Event data too large');
    });
    await assert.rejects(triggerBatch(target, [EVENT], 5000), { status: 413, body: 'Event data too large' });
    const silent = await server(() => {});
    await assert.rejects(triggerBatch(silent.target, [EVENT], 200), { error: { name: 'AbortError', message: 'no answer in time' } });
  });
});
