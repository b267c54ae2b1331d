/**
 * Graceful shutdown, HTTP side: counts the requests in flight, and once the app starts closing
 * answers every request it still finishes with `Connection: close`, so keep-alive connections end
 * after their reply instead of holding the shutdown open (src/shutdown.ts sets the deadline).
 * A reply sent before its request's body was fully received closes its connection too.
 */
import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';

/**
 * True while part of the request's body may still be on its way. A request without a body is whole
 * once its head is, though Node marks it complete only after the handler has run.
 */
function bodyStillArriving(raw: IncomingMessage): boolean {
  if (raw.complete) return false;
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Requests received and not yet answered (or abandoned by their client). */
    inFlightRequests(): number;
    /** True once close() has begun. */
    isDraining(): boolean;
  }
}

export const draining = fp(
  async (app) => {
    let inFlight = 0;
    let closing = false;
    app.decorate('inFlightRequests', () => inFlight);
    app.decorate('isDraining', () => closing);

    // Callback hooks (see logging.ts): they run on every request.
    app.addHook('onRequest', (_request, reply, done) => {
      inFlight++;
      // 'close' fires once per response, whether it was sent or its client went away.
      reply.raw.once('close', () => inFlight--);
      done();
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      // Also when the reply comes before the whole body did (an auth error answered at onRequest):
      // the rest of that body would otherwise keep the connection busy and could time out into a
      // second, stray answer.
      if (closing || bodyStillArriving(request.raw)) void reply.header('connection', 'close');
      done(null, payload);
    });
    app.addHook('preClose', async () => {
      closing = true;
    });
  },
  { name: 'souk-draining', fastify: '5.x' },
);
