/**
 * Soak: mixed traffic for a given duration against a Souk server, reporting errors, latency
 * percentiles over time and the server's memory over time (docs/hardening.md).
 *
 *   npm run soak -- --duration 60
 *       builds, starts `souk serve` on a temp SQLite database with a generated marketplace
 *       (2000 users, 5000 listings), drives it and stops it.
 *   npm run soak -- --duration 600 --url http://127.0.0.1:8080 --api-key K --jwt-secret S --token-mac-key M \
 *       --users 1-2000 --listings 1-5000 [--pid PID]
 *       drives a running server (loopback only); --pid lets it read that server's RSS.
 *
 * Exits 1 when any request failed (an unexpected status, a 5xx, a network error or a timeout), or
 * when the server's RSS at the end is more than --max-rss-growth (default 20%) above its RSS
 * after the warm-up.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { signToken } from '../../src/auth/jwt.js';
import { npmStartFlags } from '../npm-start-flags.js';
import { parseImportDocument, type ImportDocument } from '../../src/cli/import-document.js';
import { loadConfig } from '../../src/config.js';
import { importCatalog } from '../../src/domain/catalog.js';
import { createSouk } from '../../src/server.js';
import { postJson, withWorkers } from '../../tools/http.js';
import { rssMb, SOUK_BIN, SOUK_READY, startProcess } from '../../tools/processes.js';

const USAGE = `usage: npm run soak -- [--duration SECONDS] [--concurrency N] [--interval SECONDS] [--warmup SECONDS]
                     [--max-rss-growth FRACTION] [--json FILE]
                     [--url URL --api-key KEY --jwt-secret SECRET --token-mac-key KEY --users A-B --listings A-B [--pid PID]]`;

const API = '/wp-json/rtcl/v1';
const PATH = { toggle: `${API}/my/favourites`, start: `${API}/my/chat/conversation` } as const;

interface Options {
  durationS: number;
  concurrency: number;
  intervalS: number;
  warmupS: number;
  maxRssGrowth: number;
  json: string | undefined;
  url: string | undefined;
  apiKey: string | undefined;
  jwtSecret: string | undefined;
  tokenMacKey: string | undefined;
  users: [number, number];
  listings: [number, number];
  pid: number | undefined;
  /** Flags for the node process of the server the soak starts itself (default: npm start's). */
  nodeOptions: string[];
}

function range(raw: string | undefined, fallback: [number, number], name: string): [number, number] {
  if (raw === undefined) return fallback;
  const m = /^(\d+)-(\d+)$/.exec(raw);
  if (!m || Number(m[1]) > Number(m[2])) throw new Error(`${name} must be A-B, e.g. 1-2000`);
  return [Number(m[1]), Number(m[2])];
}

function positive(raw: string | undefined, fallback: number, name: string): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

function options(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string' },
      concurrency: { type: 'string' },
      interval: { type: 'string' },
      warmup: { type: 'string' },
      'max-rss-growth': { type: 'string' },
      json: { type: 'string' },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      'jwt-secret': { type: 'string' },
      'token-mac-key': { type: 'string' },
      users: { type: 'string' },
      listings: { type: 'string' },
      pid: { type: 'string' },
      'node-options': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const durationS = positive(values.duration, 60, '--duration');
  const intervalS = positive(values.interval, 10, '--interval');
  const url = values.url;
  if (url !== undefined) {
    const host = new URL(url).hostname;
    if (!/^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(host))
      throw new Error('--url must be a loopback address (127.0.0.0/8, localhost, [::1])');
    if (!values['api-key'] || !values['jwt-secret'] || !values['token-mac-key'])
      throw new Error('--url needs --api-key, --jwt-secret and --token-mac-key');
  }
  return {
    durationS,
    concurrency: Math.round(positive(values.concurrency, 16, '--concurrency')),
    intervalS,
    warmupS: positive(values.warmup, Math.min(20, durationS / 3), '--warmup'),
    maxRssGrowth: positive(values['max-rss-growth'], 0.2, '--max-rss-growth'),
    json: values.json,
    url,
    apiKey: values['api-key'],
    jwtSecret: values['jwt-secret'],
    tokenMacKey: values['token-mac-key'],
    users: range(values.users, [1, 2000], '--users'),
    listings: range(values.listings, [1, 5000], '--listings'),
    pid: values.pid === undefined ? undefined : Math.round(positive(values.pid, 0, '--pid')),
    // By default the flags of `npm start`, so the soak's memory figures are those users get.
    nodeOptions: values['node-options'] === undefined ? npmStartFlags() : values['node-options'].split(/\s+/).filter(Boolean),
  };
}

// ---------------------------------------------------------------- the server under test

interface Target {
  base: string;
  apiKey: string;
  jwtSecret: string;
  tokenMacKey: string;
  pid: number | undefined;
  /** Owner of each listing when known (own server): starts avoid the caller's own listings. */
  ownerOf: ((listing: number) => number) | undefined;
  /** The server's RSS in MB right after a full garbage collection (own server only). */
  gcRss: (() => Promise<number | undefined>) | undefined;
  stop(): Promise<void>;
}

function marketplace(users: number, listings: number): ImportDocument {
  return {
    users: Array.from({ length: users }, (_, i) => ({
      id: i + 1,
      login: `user${i + 1}`,
      name: `User ${i + 1}`,
      email: `user${i + 1}@soak.example`,
    })),
    listings: Array.from({ length: listings }, (_, i) => ({
      id: i + 1,
      owner_id: (i % users) + 1,
      title: `Listing ${i + 1}`,
      slug: `listing-${i + 1}`,
      price: String(10 + (i % 990)),
    })),
  };
}

async function ownServer(opts: Options): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'souk-soak-'));
  const [, users] = opts.users;
  const [, listings] = opts.listings;
  const secrets = {
    API_KEY: randomBytes(24).toString('base64url'),
    JWT_SECRET: randomBytes(32).toString('base64url'),
    TOKEN_MAC_KEY: randomBytes(32).toString('base64url'),
  };
  // The soak's failing requests (a tenth of all, from one address) must get their 401s, not the
  // failed-authentication throttle's 429: it is off for the soak's own server.
  const env = {
    DATABASE_URL: `sqlite:${join(dir, 'souk.db')}`,
    SITE_URL: 'https://soak.example',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_AUTH_FAILURES: '0',
    // The soak's users write far faster than people: the abuse limits would refuse them.
    MESSAGES_PER_MINUTE: '0',
    NEW_CONVERSATIONS_PER_HOUR: '0',
    ...secrets,
  };
  const souk = await createSouk(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  const parsed = parseImportDocument(marketplace(users, listings));
  if (!parsed.ok) throw new Error(`${parsed.path}: ${parsed.problem}`);
  const imported = await importCatalog(souk.store, parsed.catalog);
  if (!imported.ok) throw new Error(`${imported.path}: ${imported.problem}`);
  await souk.close();

  const probe = fileURLToPath(new URL('./gc-probe.cjs', import.meta.url));
  const server = await startProcess('souk serve (run npm run build first?)', {
    args: ['--expose-gc', '--require', probe, ...opts.nodeOptions, SOUK_BIN, 'serve'],
    env,
    ready: SOUK_READY,
  });
  return {
    base: server.url,
    apiKey: secrets.API_KEY,
    jwtSecret: secrets.JWT_SECRET,
    tokenMacKey: secrets.TOKEN_MAC_KEY,
    pid: server.pid,
    ownerOf: (listing) => ((listing - 1) % users) + 1,
    async gcRss() {
      const seen = server.output().length;
      server.child.kill('SIGUSR2');
      for (let i = 0; i < 100; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const line = /SOAK_MEMORY (\{.*\})/.exec(server.output().slice(seen));
        if (line) return (JSON.parse(line[1]!) as { rss: number }).rss / 1048576;
      }
      return undefined;
    },
    async stop() {
      const code = await server.stop();
      if (code !== 0) console.error(`souk serve exited ${code}:\n${server.output().slice(-2000)}`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const rssOf = (pid: number | undefined) => (pid === undefined ? undefined : rssMb(pid));

// ---------------------------------------------------------------- traffic

type Kind = 'toggle' | 'start' | 'bad-listing' | 'bad-key' | 'bad-token';

interface Outcome {
  kind: Kind;
  ms: number;
  error: string | undefined;
}

const pick = ([lo, hi]: [number, number]) => lo + Math.floor(Math.random() * (hi - lo + 1));

function chooseKind(): Kind {
  const r = Math.random();
  if (r < 0.55) return 'toggle';
  if (r < 0.9) return 'start';
  if (r < 0.94) return 'bad-listing';
  if (r < 0.97) return 'bad-key';
  return 'bad-token';
}

/** Whether the answer is the one this kind of request should get. */
function expected(kind: Kind, status: number, body: string, known: boolean): boolean {
  switch (kind) {
    case 'toggle':
      return status === 200 || (!known && status === 400 && body.includes('Listing not found.'));
    case 'start':
      return (
        status === 200 ||
        (!known && ((status === 400 && body.includes('Listing not found.')) || (status === 403 && body.includes('not permitted'))))
      );
    case 'bad-listing':
      return status === 400 && body.includes('BADREQUEST');
    case 'bad-key':
      return status === 401 && body.includes('INVALID_API_KEY');
    case 'bad-token':
      return status === 401 && body.includes('INVALID_TOKEN');
  }
}

async function drive(opts: Options, target: Target, until: number, record: (o: Outcome) => void): Promise<void> {
  const tokens = new Map<number, string>();
  const tokenOf = (user: number) => {
    let token = tokens.get(user);
    if (!token) tokens.set(user, (token = signToken(target, user, `user${user}`, 24 * 3600)));
    return token;
  };
  let seq = 0;
  await withWorkers(opts.concurrency, async (agent) => {
    if (Date.now() >= until) return false;
    const kind = chooseKind();
    const user = pick(opts.users);
    let listing = pick(opts.listings);
    if (target.ownerOf) while (target.ownerOf(listing) === user) listing = pick(opts.listings);
    const headers = { 'x-api-key': target.apiKey, authorization: `Bearer ${tokenOf(user)}` };
    let path: string = PATH.toggle;
    let body = JSON.stringify({ listing_id: listing });
    if (kind === 'start') {
      path = PATH.start;
      const n = seq++;
      body = JSON.stringify({
        listing_id: listing,
        text: `soak message ${n} ${'lorem ipsum '.repeat(1 + (n % 15))}`,
        ...(n % 2 ? { temp_id: n } : {}),
      });
    } else if (kind === 'bad-listing') {
      body = JSON.stringify({ listing_id: Math.random() < 0.5 ? 'abc' : -1 });
    } else if (kind === 'bad-key') {
      headers['x-api-key'] = 'not-the-key';
    } else if (kind === 'bad-token') {
      headers.authorization = `Bearer ${tokenOf(user).slice(0, -4)}AAAA`;
    }
    const started = performance.now();
    let error: string | undefined;
    try {
      const res = await postJson(agent, target.base + path, headers, body);
      if (!expected(kind, res.status, res.body, target.ownerOf !== undefined)) error = `${kind}: ${res.status} ${res.body.slice(0, 160)}`;
    } catch (err) {
      error = `${kind}: ${(err as Error).message}`;
    }
    record({ kind, ms: performance.now() - started, error });
    return true;
  });
}

// ---------------------------------------------------------------- report

interface Row {
  atS: number;
  requests: number;
  rps: number;
  errors: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  rssMb: number | undefined;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0;
const fmt = (n: number | undefined, digits = 1) => (n === undefined ? '-' : n.toFixed(digits));

async function main(): Promise<number> {
  const opts = options(process.argv.slice(2));
  const target: Target = opts.url
    ? {
        base: opts.url.replace(/\/+$/, ''),
        apiKey: opts.apiKey!,
        jwtSecret: opts.jwtSecret!,
        tokenMacKey: opts.tokenMacKey!,
        pid: opts.pid,
        ownerOf: undefined,
        gcRss: undefined,
        stop: async () => {},
      }
    : await ownServer(opts);
  console.log(
    `soak: ${opts.durationS} s against ${target.base}, ${opts.concurrency} connections, users ${opts.users.join('-')}, listings ${opts.listings.join('-')}; ` +
      `warm-up ${opts.warmupS} s; server pid ${target.pid ?? 'unknown'}`,
  );
  console.log('  time     reqs    req/s  errors   p50 ms   p90 ms   p99 ms   max ms   rss MB');

  const startedAt = Date.now();
  const until = startedAt + opts.durationS * 1000;
  let window: number[] = [];
  let windowErrors = 0;
  const all: number[] = [];
  const errors = new Map<string, number>();
  const rows: Row[] = [];
  let lastTick = startedAt;
  let warmRss: number | undefined;
  let warmGcRss: Promise<number | undefined> | undefined;

  const tick = () => {
    const now = Date.now();
    const sorted = window.sort((a, b) => a - b);
    const row: Row = {
      atS: Math.round((now - startedAt) / 1000),
      requests: sorted.length,
      rps: sorted.length / ((now - lastTick) / 1000),
      errors: windowErrors,
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? 0,
      rssMb: rssOf(target.pid),
    };
    rows.push(row);
    if (warmRss === undefined && now - startedAt >= opts.warmupS * 1000 - 500) {
      warmRss = row.rssMb;
      warmGcRss = target.gcRss?.();
    }
    console.log(
      `${String(row.atS).padStart(5)}s ${String(row.requests).padStart(8)} ${fmt(row.rps).padStart(8)} ${String(row.errors).padStart(7)} ` +
        `${fmt(row.p50, 2).padStart(8)} ${fmt(row.p90, 2).padStart(8)} ${fmt(row.p99, 2).padStart(8)} ${fmt(row.max, 1).padStart(8)} ${fmt(row.rssMb).padStart(8)}`,
    );
    window = [];
    windowErrors = 0;
    lastTick = now;
  };
  const timer = setInterval(tick, opts.intervalS * 1000);
  try {
    await drive(opts, target, until, (o) => {
      window.push(o.ms);
      all.push(o.ms);
      if (o.error) {
        windowErrors++;
        errors.set(o.error, (errors.get(o.error) ?? 0) + 1);
      }
    });
  } finally {
    clearInterval(timer);
  }
  if (window.length) tick();
  const finalRss = rssOf(target.pid) ?? rows.at(-1)?.rssMb;
  const warmAfterGc = await warmGcRss;
  const finalAfterGc = await target.gcRss?.();
  await target.stop();

  const sorted = all.sort((a, b) => a - b);
  const errorCount = [...errors.values()].reduce((a, b) => a + b, 0);
  const rawGrowth = warmRss !== undefined && finalRss !== undefined ? finalRss / warmRss - 1 : undefined;
  const gcGrowth = warmAfterGc !== undefined && finalAfterGc !== undefined ? finalAfterGc / warmAfterGc - 1 : undefined;
  // The check: memory retained (RSS right after a full collection) when the server is our own;
  // the raw RSS otherwise.
  const growth = gcGrowth ?? rawGrowth;
  const pct = (g: number | undefined) => (g === undefined ? 'unknown' : `${g >= 0 ? '+' : ''}${(g * 100).toFixed(1)}%`);
  const summary = {
    durationS: opts.durationS,
    concurrency: opts.concurrency,
    requests: sorted.length,
    rps: sorted.length / opts.durationS,
    errors: errorCount,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? 0,
    warmRssMb: warmRss,
    finalRssMb: finalRss,
    rssGrowth: rawGrowth,
    warmRssAfterGcMb: warmAfterGc,
    finalRssAfterGcMb: finalAfterGc,
    rssAfterGcGrowth: gcGrowth,
    rows,
  };
  console.log(
    `\ntotal: ${summary.requests} requests (${fmt(summary.rps)} req/s), ${errorCount} errors; ` +
      `p50 ${fmt(summary.p50, 2)} ms, p90 ${fmt(summary.p90, 2)} ms, p99 ${fmt(summary.p99, 2)} ms, max ${fmt(summary.max)} ms; ` +
      `RSS after warm-up ${fmt(warmRss)} MB, at the end ${fmt(finalRss)} MB (${pct(rawGrowth)})` +
      (gcGrowth === undefined ? '' : `; after a full GC: ${fmt(warmAfterGc)} MB and ${fmt(finalAfterGc)} MB (${pct(gcGrowth)})`),
  );
  for (const [what, n] of [...errors].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`  error x${n}: ${what}`);
  if (opts.json) writeFileSync(opts.json, `${JSON.stringify(summary, null, 2)}\n`);

  let failed = false;
  if (errorCount > 0) {
    console.log(`FAIL: ${errorCount} requests failed`);
    failed = true;
  }
  if (growth !== undefined && growth > opts.maxRssGrowth) {
    console.log(
      `FAIL: ${gcGrowth === undefined ? 'RSS' : 'RSS after a full GC'} grew ${pct(growth)} after the warm-up (limit ${(opts.maxRssGrowth * 100).toFixed(0)}%)`,
    );
    failed = true;
  }
  if (growth === undefined) console.log("note: the server's RSS is unknown (give --pid with --url); the memory check was skipped");
  if (sorted.length === 0) {
    console.log('FAIL: no request completed');
    failed = true;
  }
  if (!failed) console.log('PASS');
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`soak: ${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  },
);
