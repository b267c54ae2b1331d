/**
 * Who may read the metrics, and the metrics port: a plain HTTP server of its own that serves
 * only GET /metrics, so that a scrape needs no token and the API port need not expose them.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { noRoute } from '../errors.js';

export interface MetricsText {
  contentType: string;
  text: string;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** True when no token is required, or the header is `Bearer <token>` (compared in constant time). */
export function authorised(header: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const match = /^bearer (.+)$/i.exec(header ?? '');
  return match !== null && timingSafeEqual(digest(match[1] as string), digest(token));
}

export const UNAUTHORISED = {
  status: 401,
  headers: { 'www-authenticate': 'Bearer realm="metrics"' },
  body: { code: 'metrics_unauthorized', message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.' },
} as const;

export interface MetricsServerOptions {
  /** When set, scrapes on this port need it too. */
  token: string | undefined;
  render: () => Promise<MetricsText>;
}

// A scrape is one small GET: it needs neither much time nor many connections, and the port may be
// reachable from a network (METRICS_HOST).
const SERVER_OPTIONS = { headersTimeout: 5000, requestTimeout: 10_000, keepAliveTimeout: 5000 };
const MAX_CONNECTIONS = 64;

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function answer(req: IncomingMessage, res: ServerResponse, opts: MetricsServerOptions): Promise<void> {
  const path = (req.url ?? '').split('?', 1)[0];
  if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
    const missing = noRoute();
    return sendJson(res, missing.statusCode, missing.body);
  }
  if (!authorised(req.headers.authorization, opts.token)) {
    return sendJson(res, UNAUTHORISED.status, UNAUTHORISED.body, UNAUTHORISED.headers);
  }
  const { contentType, text } = await opts.render();
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
  res.end(req.method === 'HEAD' ? undefined : text);
}

/** The metrics port's server, not yet listening. */
export function metricsServer(opts: MetricsServerOptions): Server {
  const server = createServer(SERVER_OPTIONS, (req, res) => {
    answer(req, res, opts).catch(() => res.destroy());
  });
  server.maxConnections = MAX_CONNECTIONS;
  return server;
}

export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
