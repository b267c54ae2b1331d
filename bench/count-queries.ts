/**
 * `npm run bench -- --count-queries`: how many SQL statements each operation executes per
 * request, and which. Runs Souk in this process on a small data set and counts at the driver
 * (better-sqlite3's Statement run/all/get, pg's Client.query), so src/ needs no hook: every
 * statement Kysely sends, transaction control included, is counted.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createSouk } from '../src/server.js';
import { freshBenchDatabase } from './database.js';
import { buildDataset, listingId, pairKey, SITE_URL, userId, type Dataset } from './dataset.js';
import type { BenchOptions } from './options.js';
import { PATHS, signTokens } from './scenarios.js';

let recording: string[] | undefined;
const record = (sqlText: string) => recording?.push(sqlText.replace(/\s+/g, ' ').trim());

function installCounters(): void {
  const probe = new BetterSqlite3(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  for (const method of ['run', 'all', 'get', 'iterate']) {
    const original = proto[method]!;
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      record(this.source);
      return original.apply(this, args);
    };
  }
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0];
    record(typeof q === 'string' ? q : String((q as { text?: string })?.text ?? q));
    return query.apply(this, args);
  };
}

interface Operation {
  name: string;
  /** The i-th distinct request of this operation: caller and body. */
  request(i: number): { user: number; body: Record<string, unknown> };
  path: string;
}

function operations(data: Dataset): Operation[] {
  const U = data.sizes.users;
  const withFavs: number[] = [];
  for (let u = 0; u < U && withFavs.length < 50; u++) if (data.favStart[u + 1]! > data.favStart[u]!) withFavs.push(u);
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
      const caller = (k * 31 + 5) % U;
      if (caller !== data.owner[l] && !data.seededPairs.has(pairKey(l, caller, U))) return { l, caller };
    }
  };
  const text = 'Hi! Is this still available?';
  return [
    { name: 'toggle: add', path: PATHS.toggle, request: (i) => ({ user: withFavs[i]!, body: { listing_id: listingId(notFav(withFavs[i]!)) } }) },
    { name: 'toggle: remove', path: PATHS.toggle, request: (i) => ({ user: withFavs[20 + i]!, body: { listing_id: listingId(fav(withFavs[20 + i]!)) } }) },
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

export interface QueryCount {
  operation: string;
  statements: number;
  /** Distinct counts seen over the sampled requests (one value when the count is stable). */
  seen: number[];
  sql: string[];
}

export async function countQueries(opts: Pick<BenchOptions, 'databaseUrl'>, log: (line: string) => void = console.log): Promise<QueryCount[]> {
  installCounters();
  const db = await freshBenchDatabase(opts.databaseUrl);
  try {
    const data = await buildDataset({ url: db.url, sizes: { users: 200, listings: 1000, favouritesPerUser: 5, conversations: 200 } });
    const souk = await createSouk(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', SITE_URL, SETTINGS_REFRESH_MS: '60000' }));
    const tokens = signTokens(data);
    const results: QueryCount[] = [];
    try {
      for (const op of operations(data)) {
        const counts: number[] = [];
        let last: string[] = [];
        // Request 0 warms caches (prepared statements); 1..5 are counted.
        for (let i = 0; i < 6; i++) {
          const { user, body } = op.request(i);
          recording = [];
          const res = await souk.app.inject({
            method: 'POST',
            url: op.path,
            payload: JSON.stringify(body),
            headers: { 'content-type': 'application/json', 'x-api-key': data.apiKey, authorization: `Bearer ${tokens[user]}` },
          });
          const statements = recording;
          recording = undefined;
          if (res.statusCode !== 200) throw new Error(`${op.name}: HTTP ${res.statusCode} ${res.body} (user ${userId(user)})`);
          if (i > 0) counts.push(statements.length);
          last = statements;
        }
        results.push({ operation: op.name, statements: Math.max(...counts), seen: [...new Set(counts)], sql: last });
      }
    } finally {
      await souk.close();
    }
    log(`SQL statements per request (${db.dialect}), counted at the driver, transaction control included:`);
    for (const r of results) {
      log(`\n${r.operation}: ${r.statements}${r.seen.length > 1 ? ` (varied: ${r.seen.join(', ')})` : ''}`);
      r.sql.forEach((s, i) => log(`  ${String(i + 1).padStart(2)}. ${s.length > 160 ? `${s.slice(0, 157)}...` : s}`));
    }
    return results;
  } finally {
    await db.drop();
  }
}
