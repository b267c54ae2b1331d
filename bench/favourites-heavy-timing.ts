/**
 * The favourites list's store time for a reader with 5,000 favourites against typical readers (5-30),
 * with migration 036 (docs/benchmark.md, "The heavy favourites list"), and what its triggers cost
 * the writes: with them, then without them.
 *
 *   tsx bench/favourites-heavy-timing.ts --db=sqlite|postgres [--listings=100000] [--runs=300]
 *
 * Builds one data set (SQLite in a temp folder, or a schema of its own on the local PostgreSQL),
 * then times `shownPage(user, 0, 20)` and `countShown(user)` through the store's own runner
 * (PostgreSQL: its named prepared statements, so the generic plans once they are taken), median of
 * `--runs`; then, with 036's triggers and without them: 10,000 favourites added and removed, one
 * statement each (the toggle's writes), 100,000 favourites inserted in bulk (`--bulk`), and a listing
 * with 1,000 favourites unpublished and published again. Nothing of it is kept unless `--keep`.
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { openStore, type Store } from '../src/store/index.js';
import { DEFAULT_LISTING_DETAILS } from '../src/domain/model.js';
import { listingDetailsRow } from '../src/store/common/catalog.js';
import { freshBenchDatabase } from './database.js';
import { listingFields, rng, userFields } from './dataset.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    listings: { type: 'string', default: '100000' },
    users: { type: 'string', default: '2000' },
    heavy: { type: 'string', default: '5000' },
    runs: { type: 'string', default: '300' },
    writes: { type: 'string', default: '10000' },
    bulk: { type: 'string', default: '100000' },
    keep: { type: 'boolean', default: false },
  },
});
const L = Number(values.listings);
const U = Number(values.users);
const HEAVY = Number(values.heavy);
const RUNS = Number(values.runs);
const WRITES = Number(values.writes);
// Five users' favourites of distinct listings: at most five per listing there is.
const BULK = Math.min(Number(values.bulk), 5 * L);
const PG = 'postgres://postgres@127.0.0.1:5432/test';

const chunk = <T>(rows: T[], n: number) => Array.from({ length: Math.ceil(rows.length / n) }, (_, i) => rows.slice(i * n, i * n + n));

const HEAVY_USER = 1;
const BLOCKING_HEAVY_USER = 2; // the same favourites, party to a block: the per-row block lookups run
const TYPICAL = Array.from({ length: 50 }, (_, i) => 10 + i);

/** A fresh bench database (bench/database.ts), SQLite's or a schema on the local PostgreSQL, and a store on it. */
async function open(): Promise<{ store: Store; drop: () => Promise<void> }> {
  const database = await freshBenchDatabase(values.db === 'postgres' ? PG : undefined);
  if (values.keep) console.log(`the data set: ${database.location}`);
  const store = openStore(database.url, { poolSize: 2, statementTimeoutMs: 600_000, connectTimeoutMs: 5000 });
  return { store, drop: () => database.drop() };
}

async function build(store: Store): Promise<void> {
  const db = store.db;
  const now = Date.now();
  const random = rng(52);
  const owner = new Int32Array(L).map(() => 100 + Math.floor(random() * (U - 100)));
  await db.transaction().execute(async (tx) => {
    for (const part of chunk([...Array(U).keys()], 500))
      await tx
        .insertInto('users')
        .values(part.map((u) => ({ ...userFields(u), registered_at: now })) as never)
        .execute();
    for (const part of chunk([...Array(L).keys()], 200)) {
      await tx
        .insertInto('listings')
        .values(part.map((i) => listingFields(i, owner, now)))
        .execute();
      await tx
        .insertInto('listing_details')
        .values(
          part.map((i) => ({
            listing_id: listingFields(i, owner, now).id,
            created_at: now,
            ...listingDetailsRow({
              ...DEFAULT_LISTING_DETAILS,
              priceType: 'fixed',
              adType: 'sell',
              viewCount: i % 1500,
              contact: { ...DEFAULT_LISTING_DETAILS.contact, address: `${i} Test Street`, email: `owner${owner[i]}@example.com` },
            }),
          })),
        )
        .execute();
    }
    // Favourites: the heavy readers' 5,000 (any status: some 30 % not shown), the typical readers'
    // 5-30, and background users' so that the table is not theirs alone; added_at in steps of a
    // second with ties (two favourites added in the same millisecond).
    const rows: { user_id: number; listing_id: number; added_at: number }[] = [];
    const pick = (n: number) => {
      const seen = new Set<number>();
      while (seen.size < n) seen.add(Math.floor(random() * L));
      return [...seen];
    };
    const heavy = pick(HEAVY);
    for (const user of [HEAVY_USER, BLOCKING_HEAVY_USER])
      heavy.forEach((l, k) =>
        rows.push({ user_id: user, listing_id: 1_000_000 + l, added_at: now - (HEAVY - k) * 1000 + (k % 7 === 0 ? 1000 : 0) }),
      );
    for (let u = 10; u < U; u++)
      pick(5 + Math.floor(random() * 26)).forEach((l, k) =>
        rows.push({ user_id: u + 1, listing_id: 1_000_000 + l, added_at: now - k * 1000 }),
      );
    for (const part of chunk(rows, 500)) await tx.insertInto('favourites').values(part).execute();
  });
  await store.repos.blocks.blockUser(BLOCKING_HEAVY_USER, U, now);
  if (values.db === 'postgres') await sql`vacuum analyze`.execute(db);
  else await sql`analyze`.execute(db);
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 20; i++) await fn(); // warm the caches and let PostgreSQL take its generic plans
  for (let i = 0; i < RUNS; i++) {
    const t = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(times);
}

async function measure(store: Store, label: string): Promise<void> {
  const f = store.favouriteLists;
  let k = 0;
  const typical = () => TYPICAL[k++ % TYPICAL.length]!;
  const row = {
    'heavy page': await timed(() => f.shownPage(HEAVY_USER, 0, 20)),
    'heavy count': await timed(() => f.countShown(HEAVY_USER)),
    'typical page': await timed(() => f.shownPage(typical(), 0, 20)),
    'typical count': await timed(() => f.countShown(typical())),
    'heavy, party to a block: page': await timed(() => f.shownPage(BLOCKING_HEAVY_USER, 0, 20)),
    'heavy, party to a block: count': await timed(() => f.countShown(BLOCKING_HEAVY_USER)),
  };
  console.log(
    `${values.db} ${label}: ${Object.entries(row)
      .map(([name, ms]) => `${name} ${ms.toFixed(3)} ms`)
      .join(', ')}`,
  );
}

async function writes(store: Store, label: string): Promise<void> {
  const db = store.db;
  const at = Date.now();
  const t = process.hrtime.bigint();
  for (let i = 0; i < WRITES; i++) {
    const row = { user_id: 3 + (i % 5), listing_id: 1_000_000 + ((i * 7919) % L), added_at: at + i };
    await db.insertInto('favourites').values(row).execute();
    await db.deleteFrom('favourites').where('user_id', '=', row.user_id).where('listing_id', '=', row.listing_id).execute();
  }
  const us = Number(process.hrtime.bigint() - t) / 1e3 / WRITES;
  console.log(`${values.db} ${label}: ${WRITES} favourites added and removed, ${us.toFixed(1)} µs a pair`);
}

/** BULK favourites (100,000 by default) inserted as the data set's build does (500 a statement, one transaction), then removed. */
async function bulk(store: Store, label: string): Promise<void> {
  const rows = Array.from({ length: BULK }, (_, i) => ({
    user_id: 3 + (i % 5),
    listing_id: 1_000_000 + Math.floor(i / 5),
    added_at: 1_000 + i,
  }));
  const t = process.hrtime.bigint();
  await store.db.transaction().execute(async (tx) => {
    for (const part of chunk(rows, 500)) await tx.insertInto('favourites').values(part).execute();
  });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  await store.db.deleteFrom('favourites').where('user_id', 'in', [3, 4, 5, 6, 7]).execute();
  console.log(`${values.db} ${label}: ${BULK} favourites inserted in ${ms.toFixed(0)} ms`);
}

/** A listing with 1,000 favourites unpublished and published again (raw updates of its status), median of 20 changes. */
async function statusChanges(store: Store, label: string): Promise<void> {
  const listingId = 1_000_000 + L - 1;
  await store.db.deleteFrom('favourites').where('listing_id', '=', listingId).execute();
  await store.db
    .insertInto('favourites')
    .values(Array.from({ length: 1000 }, (_, i) => ({ user_id: U - i, listing_id: listingId, added_at: 1_000 + i })))
    .execute();
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    for (const status of ['draft', 'publish']) {
      const t = process.hrtime.bigint();
      await sql`update listings set status = ${status} where id = ${listingId}`.execute(store.db);
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  const flagged = await store.db
    .selectFrom('favourites')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('listing_id', '=', listingId)
    .where('listing_published', '=', 1)
    .executeTakeFirstOrThrow();
  console.log(
    `${values.db} ${label}: a listing with 1,000 favourites changes its status in ${median(times).toFixed(2)} ms (flagged published after: ${flagged.n})`,
  );
}

/** The triggers of migration 036 alone, dropped to time the writes without them (the column and index stay). */
async function dropTriggers(store: Store): Promise<void> {
  const statements =
    values.db === 'postgres'
      ? [
          'drop trigger listing_published_follows_status on listings',
          'drop trigger listing_published_on_update on favourites',
          'drop trigger listing_published_on_insert on favourites',
        ]
      : [
          'drop trigger listing_published_follows_status',
          'drop trigger listing_published_on_update',
          'drop trigger listing_published_on_insert',
        ];
  for (const s of statements) await sql.raw(s).execute(store.db);
}

const { store, drop } = await open();
try {
  await store.migrate();
  const t = Date.now();
  await build(store);
  console.log(`built ${L} listings, ${U} users in ${((Date.now() - t) / 1000).toFixed(0)} s (with 036's triggers)`);
  await measure(store, 'with 036');
  await writes(store, 'with 036');
  await bulk(store, 'with 036');
  await statusChanges(store, 'with 036');
  await dropTriggers(store);
  await writes(store, "without 036's triggers");
  await bulk(store, "without 036's triggers");
  await statusChanges(store, "without 036's triggers");
} finally {
  await store.close();
  if (values.keep) console.log('kept');
  else await drop();
}
