/**
 * Logs: pino JSON lines (or readable lines with LOG_PRETTY), exactly one line per request, and request ids.
 * Nothing here logs headers or bodies: tokens, API keys, passwords and message texts never reach the logs.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';

/** Where log lines go instead of stdout (tests capture them); pino's DestinationStream. */
export interface LogDestination {
  write(line: string): void;
}

/** An incoming X-Request-Id is kept only when it is short and plain, so it is safe to log and echo. */
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Fastify's own requestIdHeader option would trust any incoming value, so the header is read here
 * (requestIdHeader is off) and replaced by a random id when it is missing or not acceptable.
 */
export function requestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && ACCEPTED_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** Errors are logged by name, code, message and stack only: driver errors can carry row values in other fields. */
function errorSerializer(err: Error & { code?: unknown }) {
  return { type: err.name, code: err.code, message: err.message, stack: err.stack ?? '' };
}

/** Where a request's logger holds its client address (tagRequest), for the mixin to add to each line. */
const CLIENT = Symbol('souk.client');

/** The client address of the request whose logger writes the line, as the line's `client`. */
function clientOf(_line: object, _level: number, logger: object): object {
  const client = (logger as { [CLIENT]?: string })[CLIENT];
  return client === undefined ? {} : { client };
}

export async function loggerOptions(config: Config, destination?: LogDestination): Promise<FastifyServerOptions['logger']> {
  const options = {
    level: config.logLevel,
    serializers: { err: errorSerializer },
    mixin: clientOf,
    // Belt and braces: nothing logs request objects, but if someone adds it the credentials stay out.
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'], censor: '[redacted]' },
  };
  if (config.logPretty) {
    // Loaded only when asked for: a development aid, not needed by a production server.
    const { default: pretty } = await import('pino-pretty');
    const to = destination ? { destination: destination as NodeJS.WritableStream, colorize: false } : { colorize: true };
    return { ...options, stream: pretty({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true, ...to }) };
  }
  return destination ? { ...options, stream: destination } : options;
}

/** The route pattern (not the raw address, which would leak ids into labels), or "unmatched" for a 404. */
export function routeLabel(request: { routeOptions: { url?: string } }): string {
  return request.routeOptions.url ?? 'unmatched';
}

/** Longest address path written to a log line: an unauthenticated client chooses it (up to the head limit). */
export const LOGGED_PATH_MAX = 512;

/** The request's path without its query string, cut to LOGGED_PATH_MAX with a marker saying how much was left out. */
export function loggedPath(url: string): string {
  const query = url.indexOf('?');
  const length = query < 0 ? url.length : query;
  if (length <= LOGGED_PATH_MAX) return url.slice(0, length);
  return `${url.slice(0, LOGGED_PATH_MAX)}…[${length - LOGGED_PATH_MAX} more characters]`;
}

/**
 * Gives the request's log lines their client address and its reply the request id header. The
 * address is request.ip, so it follows Fastify's trustProxy setting; every line logged for the
 * request carries it. It is set on the logger Fastify made for the request (a child of the app's,
 * so of its own), not bound by a second child: a child logger serialises its bindings when made.
 */
export function tagRequest(request: FastifyRequest, reply: FastifyReply): void {
  (request.log as { [CLIENT]?: string })[CLIENT] = request.ip;
  void reply.header('x-request-id', request.id);
}

/** The levels at which a request's info line is written. */
const LOGS_INFO = new Set(['info', 'debug', 'trace']);

/**
 * Replaces Fastify's two lines per request ("incoming request" with the request's headers, and
 * "request completed") by one line when the reply is sent. Its other per-request lines (route not
 * found, default error handler) stay off: the one line says it all.
 */
export class OneLinePerRequest extends LogController {
  constructor() {
    super({ disableRequestLogging: true });
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    logRequest(error, request, reply);
  }
}

/** Writes the one line of a request whose reply has been sent (or failed while being sent). */
export function logRequest(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
  // At LOG_LEVEL=warn and above the line is dropped: do not build it on every request.
  if (!error && !LOGS_INFO.has(request.log.level)) return;
  const line = {
    method: request.method,
    route: routeLabel(request),
    // The query string is left out: it is the client's, and could carry anything.
    path: loggedPath(request.url),
    statusCode: reply.statusCode,
    durationMs: Math.round(reply.elapsedTime * 10) / 10,
  };
  if (error) request.log.error({ ...line, err: error }, 'request failed while sending the reply');
  else request.log.info(line, 'request');
}

/** Echoes the request id on every reply, errors and 404s included, and adds the client address to its log lines. */
export const requestIdHeader = fp(
  async (app: FastifyInstance) => {
    // Callback hooks, not async ones: on every request a promise and a microtask less each.
    app.addHook('onRequest', (request, reply, done) => {
      tagRequest(request, reply);
      done();
    });
  },
  { name: 'souk-request-id' },
);
