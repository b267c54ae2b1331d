/**
 * GET /metrics in Prometheus text format: request counts and latencies by route and status,
 * the PostgreSQL pool's occupancy, and the process metrics of prom-client.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolStats } from '../../store/index.js';
import { routeLabel } from './logging.js';

export interface MetricsOptions {
  /** When set, a scrape must send `Authorization: Bearer <token>`. */
  token: string | undefined;
  poolStats: () => PoolStats | undefined;
}

// Process metrics describe the process, not one app: collected once, shared by every app in it (tests build many).
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

// Seconds, as Prometheus names want; from 1 ms (SQLite answers in about that) to 10 s (past every timeout).
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const digest = (value: string) => createHash('sha256').update(value).digest();

function authorised(header: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const match = /^bearer (.+)$/i.exec(header ?? '');
  return match !== null && timingSafeEqual(digest(match[1] as string), digest(token));
}

export const metrics = fp(async (app: FastifyInstance, opts: MetricsOptions) => {
  const registry = new Registry();
  const labelNames = ['method', 'route', 'status_code'] as const;
  const requests = new Counter({ name: 'souk_http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] });
  const latency = new Histogram({
    name: 'souk_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its reply',
    labelNames,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const pool = (name: string, help: string, pick: (s: PoolStats) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const stats = opts.poolStats();
        if (stats) this.set(pick(stats));
      },
    });
  // SQLite has one connection and no pool: no pool gauges then, rather than misleading zeros.
  if (opts.poolStats()) {
    pool('souk_db_pool_connections', 'Open PostgreSQL connections (idle and in use)', (s) => s.total);
    pool('souk_db_pool_idle_connections', 'Idle PostgreSQL connections', (s) => s.idle);
    pool('souk_db_pool_waiting_requests', 'Queries waiting for a PostgreSQL connection', (s) => s.waiting);
  }

  // Each label set's counter and histogram, looked up once: prom-client hashes the labels on every
  // inc() and observe(). Bounded: the routes' patterns ("unmatched" for the rest) x methods x statuses.
  const series = new Map<string, { count: { inc(): void }; seconds: { observe(value: number): void } }>();
  const seriesOf = (method: string, route: string, status: number) => {
    const key = `${method} ${route} ${status}`;
    let found = series.get(key);
    if (!found) {
      const labels = { method, route, status_code: String(status) };
      series.set(key, (found = { count: requests.labels(labels), seconds: latency.labels(labels) }));
    }
    return found;
  };

  // A callback hook (see logging.ts): it runs on every request.
  app.addHook('onResponse', (request, reply, done) => {
    const { count, seconds } = seriesOf(request.method, routeLabel(request), reply.statusCode);
    count.inc();
    seconds.observe(reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!authorised(request.headers.authorization, opts.token)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .send({ code: 'metrics_unauthorized', message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.' });
    }
    const all = Registry.merge([processMetrics(), registry]);
    return reply.header('cache-control', 'no-store').type(all.contentType).send(await all.metrics());
  });
}, { name: 'souk-metrics' });
