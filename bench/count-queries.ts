/**
 * `npm run bench -- --count-queries`: how many SQL statements each operation executes per
 * request, which, and how long each takes. Runs Souk in this process on the bench's data set
 * (the full one, or the small one with --quick) and counts at the driver (the SQLite engine's
 * statement run/all/get/iterate, pg's Client.query), so src/ needs no hook: every statement Kysely
 * sends, transaction control included, is counted. Times: SQLite statements run synchronously,
 * so theirs is the statement's own execution time; PostgreSQL's is the round trip until the
 * reply is in (one request at a time, so nothing else waits in between).
 */
import { createRequire } from 'node:module';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createSouk } from '../src/server.js';
import { freshBenchDatabase } from './database.js';
import { buildDataset, listingId, pairKey, READER_THREADS, SITE_URL, userId, type Dataset } from './dataset.js';
import type { BenchOptions } from './options.js';
import { PATHS, signTokens } from './scenarios.js';

interface Statement {
  sql: string;
  ms: number;
}

let recording: Statement[] | undefined;
const record = (sqlText: string, ms: number) => recording?.push({ sql: sqlText.replace(/\s+/g, ' ').trim(), ms });

type Methods = Record<string, (...args: unknown[]) => unknown>;

/** node:sqlite's statement prototype, the SQLite engine Souk uses (see src/store/sqlite/driver.ts). */
function sqliteStatementPrototype(): { proto: Methods; source: (statement: object) => string } {
  const { StatementSync } = createRequire(import.meta.url)('node:sqlite') as { StatementSync: { prototype: Methods } };
  return { proto: StatementSync.prototype, source: (s) => (s as { sourceSQL: string }).sourceSQL };
}

function installCounters(): void {
  const { proto, source } = sqliteStatementPrototype();
  for (const method of ['run', 'all', 'get', 'iterate']) {
    const original = proto[method]!;
    proto[method] = function (this: object, ...args: unknown[]) {
      const t = performance.now();
      const result = original.apply(this, args);
      record(source(this), performance.now() - t);
      return result;
    };
  }
  // mysql2 (the MySQL store, through Kysely's MysqlDialect): every statement goes through Connection.query.
  const mysql = createRequire(import.meta.url)('mysql2') as { Connection: { prototype: Methods } };
  const mysqlQuery = mysql.Connection.prototype.query!;
  mysql.Connection.prototype.query = function (this: object, ...args: unknown[]) {
    const q = args[0];
    const text = typeof q === 'string' ? q : String((q as { sql?: string })?.sql ?? q);
    const t = performance.now();
    const cb = args.findIndex((a) => typeof a === 'function');
    if (cb >= 0) {
      const done = args[cb] as (...r: unknown[]) => unknown;
      args[cb] = (...r: unknown[]) => {
        record(text, performance.now() - t);
        return done(...r);
      };
    } else record(text, 0);
    return mysqlQuery.apply(this, args);
  };
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0];
    const text = typeof q === 'string' ? q : String((q as { text?: string })?.text ?? q);
    const t = performance.now();
    const result = query.apply(this, args);
    if (result instanceof Promise)
      result.then(
        () => record(text, performance.now() - t),
        () => record(text, performance.now() - t),
      );
    else record(text, 0);
    return result;
  };
}

interface Operation {
  name: string;
  method?: 'GET';
  /** The i-th distinct request of this operation: caller and body. */
  request(i: number, prepared?: Record<string, unknown>): { user: number; body?: Record<string, unknown>; path?: string };
  path: string;
  /** A request made, uncounted, before the i-th (an offer to accept): its reply goes to `request`. */
  prepare?(i: number): { user: number; path: string; body: Record<string, unknown> };
}

function operations(data: Dataset): Operation[] {
  const U = data.sizes.users;
  const withFavs: number[] = [];
  for (let u = 0; u < U && withFavs.length < 100; u++) if (data.favStart[u + 1]! > data.favStart[u]!) withFavs.push(u);
  const fav = (u: number) => data.favListing[data.favStart[u]!]!;
  // A listing the user neither owns nor has in favourites.
  const notFav = (u: number) => {
    for (let l = 0; ; l++) {
      let isFav = false;
      for (let k = data.favStart[u]!; k < data.favStart[u + 1]!; k++) if (data.favListing[k] === l) isFav = true;
      if (!isFav && data.owner[l] !== u) return l;
    }
  };
  // A (caller, listing) pair with no conversation.
  const freshPair = (i: number) => {
    for (let k = i * 7919; ; k++) {
      const l = k % data.sizes.listings;
      const caller = (k * 31 + 5) % data.firstReader;
      if (caller !== data.owner[l] && !data.seededPairs.has(pairKey(l, caller, U))) return { l, caller };
    }
  };
  const text = 'Hi! Is this still available?';
  return [
    {
      name: 'toggle: add',
      path: PATHS.toggle,
      request: (i) => ({ user: withFavs[i]!, body: { listing_id: listingId(notFav(withFavs[i]!)) } }),
    },
    {
      name: 'toggle: remove',
      path: PATHS.toggle,
      request: (i) => ({ user: withFavs[50 + i]!, body: { listing_id: listingId(fav(withFavs[50 + i]!)) } }),
    },
    {
      name: 'start conversation: new (with temp_id, as the bench sends)',
      path: PATHS.start,
      request: (i) => {
        const { l, caller } = freshPair(i);
        return { user: caller, body: { listing_id: listingId(l), text, temp_id: 900_000 + i } };
      },
    },
    {
      name: 'start conversation: existing/append (with temp_id)',
      path: PATHS.start,
      request: (i) => ({ user: data.convCaller[i]!, body: { listing_id: listingId(data.convListing[i]!), text, temp_id: 910_000 + i } }),
    },
    {
      name: 'message send (POST my/chat/message)',
      path: PATHS.message,
      request: (i) => ({ user: data.convCaller[400 + i]!, body: { con_id: data.convId[400 + i], text, temp_id: 920_000 + i } }),
    },
    {
      name: 'offer (POST my/chat/offer)',
      path: PATHS.offer,
      request: (i) => ({ user: data.convCaller[600 + i]!, body: { con_id: data.convId[600 + i], amount: '5' } }),
    },
    {
      // The offer, made first by the conversation's caller, is the only one pending there.
      name: 'offer accept (POST my/chat/offer/respond)',
      path: PATHS.offerRespond,
      prepare: (i) => ({ user: data.convCaller[700 + i]!, path: PATHS.offer, body: { con_id: data.convId[700 + i], amount: '5' } }),
      request: (i, offer) => ({ user: data.owner[data.convListing[700 + i]!]!, body: { message_id: offer!.message_id, action: 'accept' } }),
    },
    // The read rows' requests: a reader's conversation (50 of 60 messages), chat list (20 of 25), favourites (20 of 30).
    {
      name: 'conversation read (GET my/chat/conversation)',
      method: 'GET',
      path: PATHS.start,
      request: (i) => ({
        user: data.threadCaller[i * READER_THREADS]!,
        path: `${PATHS.start}?con_id=${data.threadId[i * READER_THREADS]}`,
      }),
    },
    {
      name: 'chat list (GET my/chat)',
      method: 'GET',
      path: PATHS.chats,
      request: (i) => ({ user: data.firstReader + (i % (U - data.firstReader)) }),
    },
    {
      name: 'favourites list (GET my/favourites)',
      method: 'GET',
      path: PATHS.toggle,
      request: (i) => ({ user: data.firstReader + (i % (U - data.firstReader)) }),
    },
    {
      name: 'start conversation: new, no temp_id',
      path: PATHS.start,
      request: (i) => {
        const { l, caller } = freshPair(100 + i);
        return { user: caller, body: { listing_id: listingId(l), text } };
      },
    },
    {
      name: 'start conversation: existing/append, no temp_id',
      path: PATHS.start,
      request: (i) => ({ user: data.convCaller[50 + i]!, body: { listing_id: listingId(data.convListing[50 + i]!), text } }),
    },
  ];
}

type Souk = Awaited<ReturnType<typeof createSouk>>;

/** An operation's uncounted request before the counted one; its reply, parsed. */
async function prepareRequest(
  app: Souk['app'],
  r: NonNullable<ReturnType<NonNullable<Operation['prepare']>>>,
  auth: (user: number) => Record<string, string>,
): Promise<Record<string, unknown>> {
  const res = await app.inject({
    method: 'POST',
    url: r.path,
    payload: JSON.stringify(r.body),
    headers: { 'content-type': 'application/json', ...auth(r.user) },
  });
  if (res.statusCode !== 200) throw new Error(`preparing: HTTP ${res.statusCode} ${res.body} (user ${userId(r.user)})`);
  return res.json();
}

export interface QueryCount {
  operation: string;
  statements: number;
  /** Distinct counts seen over the sampled requests (one value when the count is stable). */
  seen: number[];
  /** The statements of one request, with each one's median time over the sampled requests. */
  sql: { sql: string; medianMs: number }[];
  totalMs: number;
}

const SAMPLES = 20;

export async function countQueries(
  opts: Pick<BenchOptions, 'databaseUrl' | 'sizes'>,
  log: (line: string) => void = console.log,
): Promise<QueryCount[]> {
  installCounters();
  const db = await freshBenchDatabase(opts.databaseUrl);
  try {
    const { users, listings, conversations } = opts.sizes;
    log(`building the data set (${users} users, ${listings} listings, ${conversations} conversations) ...`);
    const data = await buildDataset({ url: db.url, sizes: opts.sizes });
    const souk = await createSouk(
      loadConfig({
        DATABASE_URL: db.url,
        LOG_LEVEL: 'silent',
        SITE_URL,
        SETTINGS_REFRESH_MS: '60000',
        MESSAGES_PER_MINUTE: '0',
        NEW_CONVERSATIONS_PER_HOUR: '0',
      }),
    );
    const tokens = signTokens(data);
    const results: QueryCount[] = [];
    try {
      for (const op of operations(data)) {
        const counts: number[] = [];
        const samples: Statement[][] = [];
        // Request 0 warms caches (prepared statements); 1..SAMPLES are counted.
        for (let i = 0; i <= SAMPLES; i++) {
          const auth = (user: number) => ({ 'x-api-key': data.apiKey, authorization: `Bearer ${tokens[user]}` });
          const prepared = op.prepare ? await prepareRequest(souk.app, op.prepare(i), auth) : undefined;
          const { user, body, path } = op.request(i, prepared);
          recording = [];
          const res = await souk.app.inject(
            op.method === 'GET'
              ? { method: 'GET', url: path ?? op.path, headers: auth(user) }
              : {
                  method: 'POST',
                  url: op.path,
                  payload: JSON.stringify(body),
                  headers: { 'content-type': 'application/json', ...auth(user) },
                },
          );
          const statements = recording;
          recording = undefined;
          if (res.statusCode !== 200) throw new Error(`${op.name}: HTTP ${res.statusCode} ${res.body} (user ${userId(user)})`);
          if (i > 0) {
            counts.push(statements.length);
            samples.push(statements);
          }
        }
        const last = samples[samples.length - 1]!;
        const sql = last.map((st, k) => {
          const times = samples
            .filter((x) => x[k]?.sql === st.sql)
            .map((x) => x[k]!.ms)
            .sort((a, b) => a - b);
          return { sql: st.sql, medianMs: times[Math.floor(times.length / 2)]! };
        });
        const totalMs = sql.reduce((sum, x) => sum + x.medianMs, 0);
        results.push({ operation: op.name, statements: Math.max(...counts), seen: [...new Set(counts)], sql, totalMs });
      }
    } finally {
      await souk.close();
    }
    const unit = db.dialect === 'sqlite' ? 'execution time' : 'round trip';
    log(`\nSQL statements per request (${db.dialect}), counted at the driver, transaction control included;`);
    log(`median ${unit} of each over ${SAMPLES} requests, in microseconds:`);
    for (const r of results) {
      log(
        `\n${r.operation}: ${r.statements} statements${r.seen.length > 1 ? ` (varied: ${r.seen.join(', ')})` : ''}, ${Math.round(r.totalMs * 1000)} µs in all (sum of medians)`,
      );
      r.sql.forEach((s, i) => {
        const text = s.sql.length > 140 ? `${s.sql.slice(0, 137)}...` : s.sql;
        log(`  ${String(i + 1).padStart(2)}. ${String(Math.round(s.medianMs * 1000)).padStart(6)} µs  ${text}`);
      });
    }
    return results;
  } finally {
    await db.drop();
  }
}
