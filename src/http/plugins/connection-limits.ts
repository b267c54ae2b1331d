/**
 * What one client can hold of the API port's connections (docs/hardening.md, issue 26 finding 8):
 * - at most MAX_CONNECTIONS_PER_ADDRESS open connections per client address (an IPv6 address with
 *   its /64, as the throttles group it); one beyond is closed at once, unanswered, as beyond
 *   MAX_CONNECTIONS. A connection from a TRUST_PROXY address is not counted: a proxy is one address
 *   for all of its clients, and it is the proxy's part to cap each of them.
 * - a keep-alive connection that has not yet carried a request signed in with a token is closed
 *   once idle for IDLE_UNAUTHENTICATED_TIMEOUT_MS, not KEEP_ALIVE_TIMEOUT_MS. A connection is only
 *   ever idle between replies: an event stream, a reply still being written, is never cut by it.
 *   A TRUST_PROXY address's connections keep KEEP_ALIVE_TIMEOUT_MS: a proxy reuses its connections
 *   for every client, and closing them under it would race its next request.
 * Invariant: the per-address counts hold an entry only for an address with a connection open, so
 * they are bounded by MAX_CONNECTIONS.
 */
import type { Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import fp from 'fastify-plugin';
import ipaddr from 'ipaddr.js';
import { addressGroup } from '../../auth/client-address.js';

export interface ConnectionLimits {
  /** 0: no cap. */
  perAddress: number;
  idleUnauthenticatedMs: number;
  trustProxy: boolean | string[];
}

/** Whether connections from `address` come through a trusted proxy (TRUST_PROXY). */
export function trustedProxy(trust: boolean | string[]): (address: string) => boolean {
  if (typeof trust === 'boolean') return () => trust;
  const ranges = trust.map((item) =>
    item.includes('/') ? ipaddr.parseCIDR(item) : ipaddr.parseCIDR(`${item}/${ipaddr.parse(item).kind() === 'ipv4' ? 32 : 128}`),
  );
  return (address) => {
    if (!ipaddr.isValid(address)) return false;
    const parsed = ipaddr.process(address);
    return ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
  };
}

export const connectionLimits = fp<ConnectionLimits>(
  async (app, limits) => {
    const open = new Map<string, number>();
    const viaProxy = trustedProxy(limits.trustProxy);
    const signedIn = new WeakSet<Socket>();

    if (limits.perAddress > 0) {
      app.server.on('connection', (socket: Socket) => {
        const address = socket.remoteAddress;
        if (address === undefined || viaProxy(address)) return;
        const group = addressGroup(address);
        const count = open.get(group) ?? 0;
        if (count >= limits.perAddress) {
          socket.destroy();
          return;
        }
        open.set(group, count + 1);
        socket.once('close', () => {
          const left = (open.get(group) ?? 1) - 1;
          if (left > 0) open.set(group, left);
          else open.delete(group);
        });
      });
    }

    // onResponse runs on the reply's 'finish', after Node's own listener has set the keep-alive
    // timeout: this one replaces it, and Node clears it when the next request arrives. (A hook, not
    // a listener per reply: an event stream's listener would hold its request for hours.)
    app.addHook('onResponse', (request, _reply, done) => {
      const socket = request.raw.socket;
      if (request.caller) signedIn.add(socket);
      // A pipelined request already being answered: Node set no keep-alive timeout.
      const next = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
      const idle = !socket.destroyed && !next && typeof socket.setTimeout === 'function';
      if (idle && !signedIn.has(socket) && !viaProxy(socket.remoteAddress ?? '')) socket.setTimeout(limits.idleUnauthenticatedMs);
      done();
    });
  },
  { name: 'souk-connection-limits', fastify: '5.x' },
);
