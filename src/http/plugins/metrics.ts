/**
 * GET /metrics in Prometheus text format: request counts and latencies by route and status,
 * the PostgreSQL pool's occupancy, and the process metrics of prom-client.
 * Where it is served (docs/operations.md): on the API port only to scrapes with the metrics token,
 * since the API port is public and the metrics tell the exact Node.js version, traffic and memory;
 * and on the metrics port when one is configured. Neither: the API port answers 404.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PasswordStats } from '../../auth/passwords.js';
import type { MailStats } from '../../domain/mail.js';
import type { PusherStats } from '../../domain/pusher.js';
import type { PoolStats } from '../../domain/ports.js';
import { routeLabel } from './logging.js';
import { authorised, close, listen, metricsServer, UNAUTHORISED, type MetricsText } from './metrics-server.js';

export interface MetricsOptions {
  /** When set, GET /metrics is served on the API port to scrapes sending `Authorization: Bearer <token>`. */
  token: string | undefined;
  /** A port of its own for GET /metrics, on `host`; 0 for none. */
  port: number;
  host: string;
  poolStats: () => PoolStats | undefined;
  /** With REDIS_URL: whether the rate limits' Redis answers (undefined while it is not yet known). */
  rateLimitStoreUp?: (() => boolean | undefined) | undefined;
  /** What the password threads did (sign-in's verifications). */
  passwordStats?: (() => PasswordStats) | undefined;
  /** What the mail sender did (with SMTP_URL). */
  mailStats?: (() => MailStats) | undefined;
  /** What the Pusher sender did (with a Pusher app). */
  pusherStats?: { stats: () => PusherStats; takeLatencies: () => number[] } | undefined;
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

export const metrics = fp(
  async (app: FastifyInstance, opts: MetricsOptions) => {
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
    const dropped = new Counter({
      name: 'souk_http_connections_dropped_total',
      help: 'Connections closed unanswered because MAX_CONNECTIONS were open',
      registers: [registry],
    });
    app.server.on('drop', () => dropped.inc());
    // Bounded: the server keys in force (souk server-keys list) x statuses.
    const serverKeyUses = new Counter({
      name: 'souk_server_api_requests_total',
      help: 'Requests of the server API answered, by the server key that made them (its name) and status',
      labelNames: ['key', 'status_code'] as const,
      registers: [registry],
    });
    // SQLite has one connection and no pool: no pool gauges then, rather than misleading zeros.
    if (opts.poolStats()) {
      pool('souk_db_pool_connections', 'Open PostgreSQL connections (idle and in use)', (s) => s.total);
      pool('souk_db_pool_idle_connections', 'Idle PostgreSQL connections', (s) => s.idle);
      pool('souk_db_pool_waiting_requests', 'Queries waiting for a PostgreSQL connection', (s) => s.waiting);
    }
    const storeUp = opts.rateLimitStoreUp;
    if (storeUp) {
      new Gauge({
        name: 'souk_rate_limit_store_up',
        help: 'Whether the Redis of the rate limits answers (1) or not (0, RATE_LIMIT_REDIS_FAILURE applies)',
        registers: [registry],
        collect() {
          this.set(storeUp() === false ? 0 : 1);
        },
      });
    }

    if (opts.passwordStats) passwordMetrics(registry, opts.passwordStats);
    if (opts.mailStats) mailMetrics(registry, opts.mailStats);
    if (opts.pusherStats) pusherMetrics(registry, opts.pusherStats);

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
      if (request.serverKey !== null) serverKeyUses.labels(request.serverKey, String(reply.statusCode)).inc();
      done();
    });

    const render = async (): Promise<MetricsText> => {
      const all = Registry.merge([processMetrics(), registry]);
      return { contentType: all.contentType, text: await all.metrics() };
    };
    if (opts.token !== undefined) serveOnApiPort(app, opts.token, render);
    if (opts.port > 0) serveOnMetricsPort(app, { ...opts, render });
  },
  { name: 'souk-metrics' },
);

/** Counters read from the password threads at each scrape: what each sign-in cost is visible there. */
function passwordMetrics(registry: Registry, stats: () => PasswordStats): void {
  new Counter({
    name: 'souk_password_tasks_total',
    help: 'Tasks the password threads finished: verifications (burns included) and hashes',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(stats().tasks);
    },
  });
  new Counter({
    name: 'souk_password_verifications_total',
    help: "Password verifications finished, by the stored hash's form (a burn verifies against a wordpress one)",
    labelNames: ['form'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [form, count] of Object.entries(stats().verifications)) this.inc({ form }, count);
    },
  });
}

/** The mail sender's counters, read at each scrape (docs/operations.md, docs/mail.md). */
function mailMetrics(registry: Registry, stats: () => MailStats): void {
  const counter = (name: string, help: string, pick: (s: MailStats) => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(pick(stats()));
      },
    });
  counter('souk_mail_sent_total', 'Mails about waiting messages the SMTP server took', (s) => s.sent);
  counter('souk_mail_skipped_total', 'Mails not sent: read, recipient online, not to be mailed', (s) => s.skipped);
  counter(
    'souk_mail_failed_attempts_total',
    'Attempts to send a mail that failed (refused, no server, timeout); retried',
    (s) => s.failedAttempts,
  );
  counter('souk_mail_failed_total', 'Mails kept as failed once their retries ran out (souk mail retry)', (s) => s.failed);
}

/** The Pusher sender's counts by outcome, and how long after the change Pusher took each event (docs/pusher.md). */
function pusherMetrics(registry: Registry, o: { stats: () => PusherStats; takeLatencies: () => number[] }): void {
  new Counter({
    name: 'souk_pusher_events_total',
    help: 'Pusher events by outcome: sent (trimmed ones too), trimmed (sent without what made them over 10 KB), retried (a failed attempt), failed (kept as failed)',
    labelNames: ['status'] as const,
    registers: [registry],
    collect() {
      const s = o.stats();
      this.reset();
      this.inc({ status: 'sent' }, s.sent);
      this.inc({ status: 'trimmed' }, s.trimmed);
      this.inc({ status: 'retried' }, s.failedAttempts);
      this.inc({ status: 'failed' }, s.failed);
    },
  });
  new Histogram({
    name: 'souk_pusher_delivery_seconds',
    help: 'Time from the change to Pusher taking its event',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [registry],
    collect() {
      for (const seconds of o.takeLatencies()) this.observe(seconds);
    },
  });
}

function serveOnApiPort(app: FastifyInstance, token: string, render: () => Promise<MetricsText>): void {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!authorised(request.headers.authorization, token)) {
      return reply.code(UNAUTHORISED.status).headers(UNAUTHORISED.headers).send(UNAUTHORISED.body);
    }
    const { contentType, text } = await render();
    return reply.header('cache-control', 'no-store').type(contentType).send(text);
  });
}

/** The metrics port opens when the app is ready (a port in use fails start-up) and closes with it. */
function serveOnMetricsPort(app: FastifyInstance, opts: MetricsOptions & { render: () => Promise<MetricsText> }): void {
  const server = metricsServer({ token: opts.token, render: opts.render });
  app.addHook('onReady', async () => {
    await listen(server, opts.port, opts.host);
    app.log.info(`metrics are served at http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${opts.port}/metrics`);
  });
  app.addHook('onClose', async () => {
    await close(server);
  });
}
