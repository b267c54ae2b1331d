/**
 * A Pusher Channels server for tests, on a loopback port: the HTTP API that Souk triggers events
 * through (`/apps/{id}/events` and `/apps/{id}/batch_events`, each request's signature and
 * timestamp checked as Pusher checks them, data over 10 KB refused with 413), and protocol 7 over
 * WebSocket (`ws`) for the subscribers pusher-js opens, private channels' subscriptions checked
 * against the `auth` the client got from Souk. Faults on demand: down, slow, or any status.
 */
import { after } from 'node:test';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface PusherCredentials {
  appId: string;
  key: string;
  secret: string;
}

export const TEST_PUSHER_APP: PusherCredentials = { appId: '4711', key: 'souk-test-key', secret: 'souk-test-secret-0123456789' };

/** One event as Pusher took it. */
export interface TriggeredEvent {
  name: string;
  channel: string;
  /** The data as sent: JSON text. */
  data: string;
}

export type PusherFault =
  | { kind: 'none' }
  | { kind: 'status'; status: number; body?: string }
  | { kind: 'slow'; ms: number }
  /** The connection is cut before any answer. */
  | { kind: 'down' };

const hex = (s: string, secret: string) => createHmac('sha256', secret).update(s).digest('hex');

/** The HTTP API's signature of a request (Pusher's "Generating authentication signatures"). */
export function apiSignature(secret: string, method: string, path: string, query: Record<string, string>): string {
  const sorted = Object.keys(query)
    .filter((k) => k !== 'auth_signature')
    .map((k) => [k.toLowerCase(), query[k]!] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  return hex(`${method}\n${path}\n${sorted}`, secret);
}

/** A private channel's authorization: `KEY:HMAC-SHA256(secret, socket_id:channel)`. */
export const channelAuth = (app: PusherCredentials, socketId: string, channel: string) =>
  `${app.key}:${hex(`${socketId}:${channel}`, app.secret)}`;

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export async function pusherServer(app: PusherCredentials = TEST_PUSHER_APP) {
  /** Every event taken, in order. */
  const events: TriggeredEvent[] = [];
  /** Each accepted request's event count, and each refused request's reason. */
  const requests: { path: string; events: number }[] = [];
  const refused: string[] = [];
  const refusedSubscriptions: string[] = [];
  const state: { fault: PusherFault; down: boolean } = { fault: { kind: 'none' }, down: false };
  const sockets = new Map<WebSocket, { socketId: string; channels: Set<string> }>();
  let nextSocket = 1;

  const answer = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  function checkSignature(req: IncomingMessage, url: URL, body: string): string | undefined {
    const query = Object.fromEntries(url.searchParams);
    if (query.auth_key !== app.key) return 'unknown auth_key';
    if (query.auth_version !== '1.0') return 'auth_version must be 1.0';
    if (Math.abs(Number(query.auth_timestamp) - Date.now() / 1000) > 600) return 'auth_timestamp expired';
    if (body !== '' && query.body_md5 !== createHash('md5').update(body).digest('hex')) return 'body_md5 does not match';
    if (!same(query.auth_signature ?? '', apiSignature(app.secret, req.method!, url.pathname, query))) return 'invalid signature';
    return undefined;
  }

  function broadcast(e: TriggeredEvent) {
    for (const [ws, s] of sockets)
      if (s.channels.has(e.channel)) ws.send(JSON.stringify({ event: e.name, channel: e.channel, data: e.data }));
  }

  function trigger(path: string, body: string, res: ServerResponse) {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const list: Array<Record<string, unknown>> = path.endsWith('/batch_events')
      ? ((parsed.batch as Array<Record<string, unknown>> | undefined) ?? [])
      : ((parsed.channels as string[] | undefined) ?? [parsed.channel as string]).map((channel) => ({ ...parsed, channel }));
    if (list.length > 10) return answer(res, 400, { error: 'Batch too large' });
    const taken: TriggeredEvent[] = [];
    for (const e of list) {
      if (typeof e.name !== 'string' || typeof e.channel !== 'string' || typeof e.data !== 'string')
        return answer(res, 400, { error: 'name, channel and data (a string) are required' });
      if (Buffer.byteLength(e.data) > 10_240) return answer(res, 413, { error: 'Event data too large' });
      taken.push({ name: e.name, channel: e.channel, data: e.data });
    }
    requests.push({ path, events: taken.length });
    for (const e of taken) {
      events.push(e);
      broadcast(e);
    }
    answer(res, 200, path.endsWith('/batch_events') ? { batch: taken.map(() => ({})) } : {});
  }

  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const fault = state.fault;
        if (fault.kind === 'down') return req.socket.destroy();
        if (fault.kind === 'slow') await new Promise((r) => setTimeout(r, fault.ms));
        if (fault.kind === 'status')
          return res.writeHead(fault.status, { 'content-type': 'text/plain' }).end(fault.body ?? `fault ${fault.status}`);
        const path = url.pathname;
        if (req.method !== 'POST' || (path !== `/apps/${app.appId}/events` && path !== `/apps/${app.appId}/batch_events`))
          return answer(res, 404, { error: 'not found' });
        const problem = checkSignature(req, url, body);
        if (problem) {
          refused.push(problem);
          return res.writeHead(401, { 'content-type': 'text/plain' }).end(problem);
        }
        trigger(path, body, res);
      })();
    });
  });

  // Protocol 7: pusher-js connects to /app/{key}?protocol=7&client=js&version=...
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (state.down || url.pathname !== `/app/${app.key}`) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      const socketId = `${nextSocket++}.${Math.floor(Math.random() * 1e6)}`;
      sockets.set(ws, { socketId, channels: new Set() });
      ws.on('close', () => sockets.delete(ws));
      ws.on('message', (raw) => {
        const message = JSON.parse(String(raw)) as { event: string; data?: { channel?: string; auth?: string } };
        const s = sockets.get(ws)!;
        if (message.event === 'pusher:ping') return ws.send(JSON.stringify({ event: 'pusher:pong', data: {} }));
        if (message.event === 'pusher:unsubscribe') return s.channels.delete(message.data?.channel ?? '');
        if (message.event !== 'pusher:subscribe') return;
        const channel = message.data?.channel ?? '';
        if (channel.startsWith('private-') && !same(message.data?.auth ?? '', channelAuth(app, s.socketId, channel))) {
          refusedSubscriptions.push(channel);
          return ws.send(
            JSON.stringify({
              event: 'pusher:error',
              data: { code: null, message: `Invalid signature: Expected HMAC SHA256 hex digest of ${s.socketId}:${channel}` },
            }),
          );
        }
        s.channels.add(channel);
        ws.send(JSON.stringify({ event: 'pusher_internal:subscription_succeeded', channel, data: '{}' }));
      });
      ws.send(
        JSON.stringify({ event: 'pusher:connection_established', data: JSON.stringify({ socket_id: socketId, activity_timeout: 120 }) }),
      );
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const ws of sockets.keys()) ws.terminate();
    wss.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  after(close);
  return {
    app,
    port,
    /** PUSHER_URL for Souk. */
    url: `http://${app.key}:${app.secret}@127.0.0.1:${port}/apps/${app.appId}`,
    events,
    requests,
    refused,
    refusedSubscriptions,
    /** The events on one channel, in order. */
    on: (channel: string) => events.filter((e) => e.channel === channel),
    fault(f: PusherFault) {
      state.fault = f;
    },
    close,
  };
}

export type PusherTestServer = Awaited<ReturnType<typeof pusherServer>>;
