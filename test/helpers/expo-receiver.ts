/** Expo's push API for tests: a real local HTTP server standing in for it. */
import { after } from 'node:test';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ExpoMessage {
  to: string;
  title: string;
  body: string;
  data: { url: string };
  sound: string;
}

/**
 * Expo's push API on a loopback port: one ticket per message; `unregistered` tokens get
 * DeviceNotRegistered in their ticket, `uninstalled` ones in their receipt (getReceipts).
 */
export async function expoReceiver() {
  const requests: { headers: IncomingMessage['headers']; messages: ExpoMessage[] }[] = [];
  const state = { mode: 'ok' as 'ok' | 'down', refused: 0, unregistered: new Set<string>(), uninstalled: new Set<string>() };
  /** The token of each ticket given, and the ids of every getReceipts request. */
  const tickets = new Map<string, string>();
  const receiptRequests: string[][] = [];
  const ticketFor = (token: string, id: string) => {
    tickets.set(id, token);
    return id;
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      if (state.mode === 'down') {
        state.refused++;
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"errors":[{"code":"UNAVAILABLE","message":"down"}]}');
        return;
      }
      if (req.url?.endsWith('/getReceipts')) {
        const { ids } = JSON.parse(body) as { ids: string[] };
        receiptRequests.push(ids);
        const receipt = (id: string) =>
          state.uninstalled.has(tickets.get(id) ?? '') ? { status: 'error', details: { error: 'DeviceNotRegistered' } } : { status: 'ok' };
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ data: Object.fromEntries(ids.map((id) => [id, receipt(id)])) }));
        return;
      }
      const messages = JSON.parse(body) as ExpoMessage[];
      requests.push({ headers: req.headers, messages });
      const data = messages.map((m, i) =>
        state.unregistered.has(m.to)
          ? {
              status: 'error',
              message: `"${m.to}" is not a registered push notification recipient`,
              details: { error: 'DeviceNotRegistered' },
            }
          : { status: 'ok', id: ticketFor(m.to, `ticket-${requests.length}-${i}`) },
      );
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/--/api/v2/push/send`,
    requests,
    receiptRequests,
    state,
    /** Every message received, in order. */
    messages: () => requests.flatMap((r) => r.messages),
  };
}
