/**
 * GET my/events (the caller's events as Server-Sent Events) and POST my/events/ticket (a
 * single-use ticket for a browser's EventSource). The streams themselves live in src/events/
 * (StreamHub); this file authenticates, writes the head and adapts the response to a sink.
 *
 * The response is written on the raw socket (reply.hijack): an event stream is one long write
 * that Fastify's reply, made for one payload, has no use for. No SSE library: the format is three
 * lines per event, and what matters here (reading from the log, a bounded buffer that drops a slow
 * client instead of waiting for it, one heartbeat timer for all streams) is the hub's own.
 *
 * A stream keeps nothing of its request but the response and the user (see letGoOfRequest).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { onRequestAsyncHookHandler } from 'fastify';
import type { VerifiedToken } from '../../../auth/authenticate.js';
import type { StreamSink } from '../../../domain/events.js';
import { requireCaller } from '../../auth-hook.js';
import type { RouteDeps } from '../../deps.js';
import { authError, invalidTicket, noRoute } from '../../errors.js';
import { eventStreamSchema, eventTicketSchema } from './events.schema.js';

const digestOf = (text: string) => createHash('sha256').update(text).digest('hex');
/** A ticket is 32 random bytes, base64url: 43 characters. Anything else is refused unread. */
const TICKET = /^[A-Za-z0-9_-]{43}$/;

function responseSink(raw: ServerResponse): StreamSink {
  return {
    write: (chunk) => void raw.write(chunk),
    buffered: () => raw.writableLength,
    needsDrain: () => raw.writableNeedDrain,
    drained: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          raw.off('drain', done);
          raw.off('close', done);
          resolve();
        };
        raw.on('drain', done);
        raw.on('close', done);
      }),
    end: () => raw.end(),
    destroy: () => raw.destroy(),
    onClose: (listener) => raw.once('close', listener),
  };
}

/**
 * Fastify holds a hijacked reply's Request and Reply (its onResponse listener on the response) until
 * the response finishes: for a stream, hours. Thousands of request objects outliving their request
 * make V8 allocate the same objects of every later request in the old generation (allocation-site
 * pretenuring), where collecting them costs every request far more (docs/benchmark-streams.md).
 * So the stream drops that listener; its end then runs no onResponse hook (no request log line,
 * no request metric).
 */
function letGoOfRequest(raw: ServerResponse): void {
  for (const event of ['finish', 'error'] as const) {
    for (const listener of raw.listeners(event)) {
      if (listener.name === 'onResFinished') raw.off(event, listener as (...args: unknown[]) => void);
    }
  }
  // That listener also caught the response's errors (a write after its end): the stream closes instead.
  raw.on('error', () => raw.destroy());
}

const single = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A ticket names its token as revocations do: its issue time and digest, in one column. */
const ticketTokenName = (token: VerifiedToken) => `${token.issuedAt}.${token.digest}`;

function ticketToken(taken: { userId: number; tokenDigest: string; tokenExpiresAt: number }): VerifiedToken {
  const dot = taken.tokenDigest.indexOf('.');
  return {
    userId: taken.userId,
    issuedAt: Number(taken.tokenDigest.slice(0, dot)),
    digest: taken.tokenDigest.slice(dot + 1),
    expiresAt: taken.tokenExpiresAt,
  };
}

export const eventRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const events = deps.events;
  const member = requireCaller('memberRoute', deps.auth);
  const limits = { bodyLimit: deps.bodyLimit };

  /** The headers' member auth, or a ticket in the query in their place (a browser's EventSource). */
  const memberOrTicket: onRequestAsyncHookHandler = async function (request, reply) {
    const ticket = single((request.query as Record<string, unknown> | undefined)?.ticket);
    if (ticket === undefined || request.headers.authorization !== undefined) return member.call(this, request, reply);
    const rateLimits = request.server.rateLimits;
    await rateLimits.checkAddress(request.ip);
    if (!deps.auth.settings().restApiEnabled) throw authError('rest_api_disabled');
    const now = Date.now();
    const taken = TICKET.test(ticket) && events ? await events.tickets.take(digestOf(ticket), now) : undefined;
    const token = taken && ticketToken(taken);
    if (!token || token.expiresAt <= now || deps.accounts.revoked.has(token)) {
      await rateLimits.authFailed(request.ip);
      throw invalidTicket();
    }
    const user = await deps.findUser(token.userId);
    if (!user || user.disabled) throw authError('not_logged_in');
    await rateLimits.checkUser(user.id);
    request.caller = user;
    request.callerToken = token;
    deps.auth.seen?.(user.id);
  };

  app.get('/my/events', { schema: eventStreamSchema(limits), onRequest: memberOrTicket }, async (request, reply) => {
    // A store without an event log has no stream to offer.
    if (!events) throw noRoute();
    const token = request.callerToken!;
    const lastEventId = single(request.headers['last-event-id']) ?? single((request.query as Record<string, unknown>).last_event_id);
    reply.hijack();
    const raw = reply.raw;
    // The headers the hooks set (request id, CORS) go out with the stream's own.
    raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      // nginx would otherwise hold the events in its buffer.
      'x-accel-buffering': 'no',
    });
    raw.socket?.setNoDelay(true);
    letGoOfRequest(raw);
    events.streams.add({
      userId: request.caller!.id,
      lastEventId,
      sink: responseSink(raw),
      stillValid: () => token.expiresAt > Date.now() && !deps.accounts.revoked.has(token),
    });
  });

  app.post('/my/events/ticket', { schema: eventTicketSchema(limits), onRequest: member }, async (request) => {
    if (!events) throw noRoute();
    const ticket = randomBytes(32).toString('base64url');
    const token = request.callerToken!;
    // Never beyond the token's own life.
    const expiresAt = Math.min(Date.now() + events.ticketTtlS * 1000, token.expiresAt);
    await events.tickets.issue({
      digest: digestOf(ticket),
      userId: request.caller!.id,
      tokenDigest: ticketTokenName(token),
      tokenExpiresAt: token.expiresAt,
      expiresAt,
    });
    return { ticket, expires_in: Math.max(0, Math.floor((expiresAt - Date.now()) / 1000)) };
  });
};
