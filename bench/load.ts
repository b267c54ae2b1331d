/**
 * The load generator: autocannon in this process, one instance per target server (the
 * connections split between them), all drawing requests from one shared scenario. Latencies
 * of every reply are recorded here, so several targets merge into one distribution.
 */
import { createRequire } from 'node:module';
import type { Scenario, Context } from './scenarios.js';

const require = createRequire(import.meta.url);
// autocannon ships no types; the little used here is typed below.
const autocannon = require('autocannon') as (opts: Record<string, unknown>, cb: (err: Error | null, result: unknown) => void) => Tracker;

interface Tracker {
  on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  on(event: 'reqError', fn: (err: Error) => void): void;
  stop(): void;
}

export interface LoadOptions {
  targets: string[];
  connections: number;
  seconds: number;
  apiKey: string;
  tokens: string[];
  /** Per-request timeout in seconds (a timed-out request counts as an error). */
  timeout?: number;
}

export interface LoadResult {
  seconds: number;
  requests: number;
  ok: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  transportErrors: number;
  /** 2xx replies whose content was not what the operation must return. */
  badReplies: number;
  errors: number;
  statusCounts: Record<string, number>;
  /** A few examples of what went wrong. */
  problems: string[];
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  counters: Record<string, number>;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** Splits n connections over k targets as evenly as possible. */
function split(n: number, k: number): number[] {
  return Array.from({ length: k }, (_, i) => Math.floor(n / k) + (i < n % k ? 1 : 0));
}

export async function runLoad(scenario: Scenario, opts: LoadOptions): Promise<LoadResult> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let ok = 0;
  let non2xx = 0;
  let transportErrors = 0;
  let badReplies = 0;
  const statusCounts: Record<string, number> = {};
  const problems: string[] = [];
  const note = (problem: string) => {
    if (problems.length < 5) problems.push(problem);
  };

  const method = scenario.method ?? 'POST';
  const request = {
    method,
    path: scenario.path,
    headers:
      scenario.headers ??
      (method === 'GET' ? { 'x-api-key': opts.apiKey } : { 'content-type': 'application/json', 'x-api-key': opts.apiKey }),
    setupRequest(req: { headers: Record<string, string>; body?: string | Buffer; path: string }, ctx: Context) {
      const { body, contentType, path, user } = scenario.next(ctx);
      if (!scenario.headers) req.headers.authorization = scenario.authorization ?? `Bearer ${opts.tokens[user]}`;
      if (contentType !== undefined) req.headers['content-type'] = contentType;
      if (body !== undefined) req.body = body;
      req.path = path ?? scenario.path;
      return req;
    },
    onResponse(status: number, body: string, ctx: Context) {
      statusCounts[status] = (statusCounts[status] ?? 0) + 1;
      if (status < 200 || status > 299) {
        non2xx++;
        note(`HTTP ${status}: ${body.slice(0, 200)}`);
        return;
      }
      const problem = scenario.verify(status, body, ctx);
      if (problem) {
        badReplies++;
        note(`bad reply (${problem}): ${body.slice(0, 200)}`);
      } else ok++;
    },
  };

  const countersBefore = scenario.counters();
  const started = performance.now();
  const shares = split(opts.connections, opts.targets.length);
  await Promise.all(
    opts.targets.map(
      (url, i) =>
        new Promise<void>((resolve, reject) => {
          const tracker = autocannon(
            { url, connections: shares[i], duration: opts.seconds, timeout: opts.timeout ?? 10, requests: [request] },
            (err) => (err ? reject(err) : resolve()),
          );
          tracker.on('response', (_client, _status, _bytes, ms) => {
            if (count === latencies.length) {
              const bigger = new Float64Array(latencies.length * 2);
              bigger.set(latencies);
              latencies = bigger;
            }
            latencies[count++] = ms;
          });
          tracker.on('reqError', (err) => {
            transportErrors++;
            note(`transport: ${err.message}`);
          });
        }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;

  const sorted = latencies.slice(0, count).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    seconds,
    requests: count,
    ok,
    non2xx,
    transportErrors,
    badReplies,
    errors: non2xx + transportErrors + badReplies,
    statusCounts,
    problems,
    latencyMs: {
      p50: percentile(sorted, 0.5),
      p90: percentile(sorted, 0.9),
      p99: percentile(sorted, 0.99),
      max: count ? sorted[count - 1]! : 0,
      mean: count ? sum / count : 0,
    },
    counters: Object.fromEntries(Object.entries(scenario.counters()).map(([k, v]) => [k, v - (countersBefore[k] ?? 0)])),
  };
}
