/** A webhook receiver for tests: a real local HTTP server that verifies every signature with the standardwebhooks library. */
import { after } from 'node:test';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  body: any;
}

/** A webhook receiver on a loopback port; `mode` decides how it answers. */
export async function webhookReceiver(secret: string) {
  const verifier = new Webhook(secret);
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const state = { mode: 'ok' as 'ok' | 'down' | 'hang', refused: 0 };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      if (state.mode === 'hang') return void hanging.push(res);
      if (state.mode === 'down') {
        state.refused++;
        res.writeHead(503).end();
        return;
      }
      // Throws on a bad signature, a stale timestamp or a missing header: answered 400.
      try {
        verifier.verify(body, req.headers as Record<string, string>);
      } catch (err) {
        res.writeHead(400).end(String(err));
        throw err;
      }
      received.push({ id: req.headers['webhook-id'] as string, body: JSON.parse(body) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => {
    hanging.forEach((r) => r.destroy());
    server.closeAllConnections();
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    state,
    hanging,
    async waitFor(n: number, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (new Set(received.map((r) => r.id)).size < n) {
        if (Date.now() > deadline) throw new Error(`${received.length} deliveries, not ${n}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}
