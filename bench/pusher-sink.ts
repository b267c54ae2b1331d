/**
 * With --pusher: a local stand-in for Pusher's HTTP API that takes every batch and drops it, and
 * the settings that turn Souk's Pusher events on against it (docs/pusher.md), so that the rows
 * measure a Souk that writes a Pusher outbox row per event and sends them, as an operator's with
 * PUSHER_URL set does. Signatures are not checked here: the tests do that.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PusherSink {
  /** PUSHER_URL for each Souk. */
  env: Record<string, string>;
  /** Events taken so far. */
  events(): number;
  close(): Promise<void>;
}

export async function startPusherSink(): Promise<PusherSink> {
  let events = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      try {
        events += (JSON.parse(body) as { batch?: unknown[] }).batch?.length ?? 1;
      } catch {
        // Counted as nothing: the bench reads only how many arrived.
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;
  return {
    env: { PUSHER_URL: `http://bench-key:bench-secret@127.0.0.1:${port}/apps/1`, PUSHER_CLUSTER: 'mt1' },
    events: () => events,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
