/**
 * Fastify/Node server options that bound what one client can hold: the size of a request head,
 * how long it may take to send its head and its body, how long an idle connection stays open.
 * Faults the HTTP parser sees before Fastify does (oversized or malformed heads, timeouts) are
 * answered here in error shape B, like every other error (docs/hardening.md).
 */
import type { Socket } from 'node:net';
import type { Server, ServerResponse } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';
import type { HttpLimits } from '../../config.js';

/** How often Node checks connections against the header and request timeouts. */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1000;

interface ClientFault {
  status: number;
  reason: string;
  error: string;
  message: string;
}

function faultOf(err: NodeJS.ErrnoException, limits: HttpLimits): ClientFault {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      reason: 'Request Timeout',
      error: 'REQUEST_TIMEOUT',
      message: `The request was not received in time (headers within ${limits.headersTimeoutMs} ms, the whole request within ${limits.requestTimeoutMs} ms).`,
    };
  }
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      reason: 'Request Header Fields Too Large',
      error: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
      message: `The request headers are larger than the limit of ${limits.maxHeaderSize} bytes.`,
    };
  }
  return { status: 400, reason: 'Bad Request', error: 'BADREQUEST', message: 'The request is not valid HTTP/1.1.' };
}

/** How long a refused client may go on sending (its bytes are discarded) before its connection is dropped. */
const LINGER_MS = 1000;

/**
 * Answers a request the HTTP parser refused (or that timed out) with shape B and closes the
 * connection. The socket is half-closed and dropped a moment later rather than at once, so that
 * a client still sending (a huge header, say) reads the answer instead of a connection reset.
 */
export function clientErrorHandler(limits: HttpLimits) {
  const answered = new WeakSet<Socket>();
  return function onClientError(err: NodeJS.ErrnoException, socket: Socket): void {
    if (answered.has(socket)) return; // the parser reports each later chunk too: already answered
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || socket.destroyed) {
      socket.destroy();
      return;
    }
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    answered.add(socket);
    const current = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (current && !current.writableFinished && current.req.complete) {
      // Unreadable bytes after a whole request that is being served (a pipelined request gone
      // wrong): finish that reply, then close, rather than answer 400 over it and lose the reply
      // to a write that may already have happened.
      current.shouldKeepAlive = false;
      current.once('finish', () => {
        socket.end();
        setTimeout(() => socket.destroy(), LINGER_MS).unref();
      });
      return;
    }
    if (current?.headersSent) {
      socket.destroy(); // never write into the middle of a reply
      return;
    }
    const fault = faultOf(err, limits);
    const body = JSON.stringify({ status: 'error', error: fault.error, code: String(fault.status), error_message: fault.message });
    socket.end(
      `HTTP/1.1 ${fault.status} ${fault.reason}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}

/** The Fastify constructor options for the configured limits; spread into Fastify({...}). */
export function serverOptions(limits: HttpLimits): Partial<FastifyHttpOptions<Server>> {
  return {
    http: {
      maxHeaderSize: limits.maxHeaderSize,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
    },
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // While shutting down, requests that still arrive on open connections are served and their
    // connection closed after the reply (see plugins/draining.ts), not refused with a 503.
    return503OnClosing: false,
    clientErrorHandler: clientErrorHandler(limits),
  };
}
