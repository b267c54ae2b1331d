/**
 * The favourites list of a reader with many favourites (migration 036,
 * src/store/common/migrations/036-favourites-by-user.ts): every page and the count are what a plain
 * reading of the rules gives (published, neither the listing nor its owner blocked; newest first,
 * the later id first within a millisecond), before and after the reader blocks; and the page walks
 * the reader's favourites in favourites_by_user's order, without sorting them. On SQLite, and on
 * PostgreSQL (there the prepared statement's generic plan, which the store's named statements run).
 * The kept flag `listing_published` follows the listing's status however it changes, and is set
 * for the favourites a database holds when the migration runs.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import type { Store } from '../../src/store/index.js';
import { favouriteListRepository } from '../../src/store/common/favourite-list.js';
import { importCatalog } from '../../src/domain/catalog.js';
import { toggleFavourite } from '../../src/domain/favourites.js';
import { parseImportDocument } from '../../src/cli/import-document.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations/index.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations/index.js';
import { marketplaceStore } from '../helpers/marketplace-store.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';

const MANY = 600;
const FIRST_ID = 10_000;
const STATUSES = ['publish', 'publish', 'publish', 'draft', 'publish', 'pending', 'publish', 'expired'];

/** MANY listings of youssef's and sara's, some not published; amina favourites them all, several in one millisecond, in shuffled order. */
async function manyFavourites(store: Store, analyze = true): Promise<void> {
  const model = await store.db.selectFrom('listings').selectAll().where('id', '=', LISTINGS.bike).executeTakeFirstOrThrow();
  const ids = Array.from({ length: MANY }, (_, i) => FIRST_ID + i);
  const listings = ids.map((id, i) => ({
    ...model,
    id,
    owner_id: i % 5 === 0 ? USERS.sara : USERS.youssef,
    slug: `listing-${id}`,
    status: STATUSES[i % STATUSES.length]!,
  }));
  const order = ids.map((id, i) => ({ id, key: (i * 7919) % MANY })).sort((a, b) => a.key - b.key);
  const favourites = order.map(({ id }, k) => ({
    user_id: USERS.amina,
    listing_id: id,
    added_at: 1_000_000 + Math.floor((id * 13) % 97) * 10 + (k % 3),
  }));
  for (let i = 0; i < MANY; i += 200)
    await store.db
      .insertInto('listings')
      .values(listings.slice(i, i + 200))
      .execute();
  for (let i = 0; i < MANY; i += 200)
    await store.db
      .insertInto('favourites')
      .values(favourites.slice(i, i + 200))
      .execute();
  // Other readers, so that the statistics see many users of a few favourites each.
  await store.db
    .insertInto('favourites')
    .values(ids.slice(0, 40).flatMap((id) => [USERS.youssef, USERS.sara].map((user_id) => ({ user_id, listing_id: id, added_at: id }))))
    .execute();
  if (analyze) await sql`analyze`.execute(store.db);
}

/** The plain reading: amina's favourites whose listing is published and not blocked by her, newest first, the later id first. */
async function expected(store: Store, userId: number): Promise<number[]> {
  const rows = await store.db
    .selectFrom('favourites')
    .innerJoin('listings', 'listings.id', 'favourites.listing_id')
    .select(['favourites.id', 'favourites.added_at', 'favourites.listing_id', 'listings.status', 'listings.owner_id'])
    .where('favourites.user_id', '=', userId)
    .execute();
  const blockedListings = new Set(await store.repos.blocks.blockedListingIds(userId));
  const blockedUsers = new Set(await store.repos.blocks.blockedUserIds(userId));
  return rows
    .filter((r) => r.status === 'publish' && !blockedListings.has(Number(r.listing_id)) && !blockedUsers.has(Number(r.owner_id)))
    .sort((a, b) => Number(b.added_at) - Number(a.added_at) || Number(b.id) - Number(a.id))
    .map((r) => Number(r.listing_id));
}

async function assertPages(store: Store): Promise<void> {
  const all = await expected(store, USERS.amina);
  assert.ok(all.length > 100 && all.length < MANY);
  assert.equal(await store.favouriteLists.countShown(USERS.amina), all.length);
  const read = async (offset: number, limit: number) =>
    (await store.favouriteLists.shownPage(USERS.amina, offset, limit)).map((s) => s.listing.id);
  for (let offset = 0; offset < all.length + 40; offset += 20)
    assert.deepEqual(await read(offset, 20), all.slice(offset, offset + 20), `offset ${offset}`);
  assert.deepEqual(await read(7, 33), all.slice(7, 40));
  assert.deepEqual(await read(all.length - 3, 20), all.slice(-3));
}

/** The SQL the repository sends, with its parameters, read from a runner that keeps them. */
async function statementsOf(store: Store): Promise<{ page: CompiledQuery; count: CompiledQuery }> {
  const sent: CompiledQuery[] = [];
  const repository = favouriteListRepository({ db: store.db, execute: (query) => (sent.push(query), store.db.executeQuery(query)) });
  await repository.shownPage(USERS.amina, 0, 20);
  await repository.countShown(USERS.amina);
  return { page: sent[0]!, count: sent[1]! };
}

interface PgPlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Parent Relationship'?: string;
  Plans?: PgPlanNode[];
}
const nodes = (n: PgPlanNode): PgPlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];
/** The plan's nodes but its subplans' (the block check's, which runs only for a reader party to a block). */
const mainNodes = (n: PgPlanNode): PgPlanNode[] => [
  n,
  ...(n.Plans ?? []).filter((p) => !['SubPlan', 'InitPlan'].includes(p['Parent Relationship'] ?? '')).flatMap(mainNodes),
];
const literal = (v: unknown) => (typeof v === 'string' ? `'${v.replace(/'/g, "''")}'` : String(v));

/** PostgreSQL's generic plan of a statement prepared as the store prepares it. */
async function genericPlan(store: Store, query: CompiledQuery): Promise<PgPlanNode> {
  return store.db.connection().execute(async (c) => {
    await sql`set plan_cache_mode = force_generic_plan`.execute(c);
    try {
      await c.executeQuery(CompiledQuery.raw(`prepare favourites_plan as ${query.sql}`));
      const explained = await c.executeQuery<{ 'QUERY PLAN': [{ Plan: PgPlanNode }] }>(
        CompiledQuery.raw(`explain (format json) execute favourites_plan(${query.parameters.map(literal).join(', ')})`),
      );
      return explained.rows[0]!['QUERY PLAN'][0].Plan;
    } finally {
      await sql`deallocate favourites_plan`.execute(c);
      await sql`reset plan_cache_mode`.execute(c);
    }
  });
}

describe('the favourites list of a reader with many favourites (migration 036)', () => {
  it('gives every page and the count as the rules read, with ties in added_at, before and after blocks', async (t) => {
    const store = await marketplaceStore(t);
    await manyFavourites(store);
    await assertPages(store);
    await store.repos.blocks.blockListing(USERS.amina, FIRST_ID + 1, Date.now());
    await store.repos.blocks.blockUser(USERS.amina, USERS.sara, Date.now());
    await assertPages(store);
  });

  it("walks the reader's favourites in favourites_by_user's order, without sorting them", async (t) => {
    const store = await marketplaceStore(t);
    await manyFavourites(store);
    const { page, count } = await statementsOf(store);
    if (store.dialect === 'sqlite') {
      const plan = async (q: CompiledQuery) =>
        (await store.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]))).rows
          .map((r) => r.detail)
          .join('; ');
      const pagePlan = await plan(page);
      assert.match(pagePlan, /SEARCH favourites USING COVERING INDEX favourites_by_user \(user_id=\? AND listing_published=\?\)/);
      assert.doesNotMatch(pagePlan, /TEMP B-TREE/);
      // The count reads the same range of the index alone; a listing is read only for the block check (bl).
      const countPlan = await plan(count);
      assert.match(countPlan, /SEARCH favourites USING COVERING INDEX favourites_by_user \(user_id=\? AND listing_published=\?\)/);
      assert.doesNotMatch(countPlan, /SEARCH listings /);
      return;
    }
    const plan = await genericPlan(store, page);
    const limit = nodes(plan).find((n) => n['Node Type'] === 'Limit');
    assert.ok(limit, JSON.stringify(plan));
    const below = nodes(limit);
    assert.ok(
      below.some((n) => n['Index Name'] === 'favourites_by_user'),
      JSON.stringify(plan),
    );
    assert.ok(!below.some((n) => n['Node Type'] === 'Sort' || n['Node Type'] === 'Incremental Sort'), JSON.stringify(plan));
    // The count: the range of favourites_by_user, no join of the listings (a listing is read only in
    // the block check's subplan, which a reader party to no block skips).
    const countPlan = await genericPlan(store, count);
    const countNodes = mainNodes(countPlan);
    assert.ok(
      countNodes.some((n) => n['Index Name'] === 'favourites_by_user'),
      JSON.stringify(countPlan),
    );
    assert.ok(!countNodes.some((n) => /Join|Nested Loop/.test(n['Node Type'])), JSON.stringify(countPlan));
  });

  it("follows a listing's status: the catalog import's upsert, a raw update, a favourite written with a wrong flag", async (t) => {
    const store = await marketplaceStore(t);
    await manyFavourites(store);
    await store.repos.blocks.blockUser(USERS.amina, USERS.sara, Date.now());
    const published = await store.db
      .selectFrom('listings')
      .select(['id', 'owner_id', 'title', 'slug'])
      .where('id', '=', FIRST_ID + 1)
      .executeTakeFirstOrThrow();
    const importStatus = async (status: string) => {
      const parsed = parseImportDocument({
        listings: [{ id: published.id, owner_id: published.owner_id, title: published.title, slug: published.slug, price: '10', status }],
      });
      assert.ok(parsed.ok);
      assert.deepEqual(await importCatalog(store, parsed.catalog), { ok: true, users: 0, listings: 1 });
    };
    const shownNow = async () => (await expected(store, USERS.amina)).includes(published.id);
    assert.equal(await shownNow(), true);
    await importStatus('draft');
    assert.equal(await shownNow(), false);
    await assertPages(store);
    await importStatus('publish');
    assert.equal(await shownNow(), true);
    await assertPages(store);
    // Raw updates, and one that changes a status to another unpublished one (the flag stays 0).
    await sql`update listings set status = 'draft' where id = ${published.id}`.execute(store.db);
    await sql`update listings set status = 'pending' where id = ${published.id}`.execute(store.db);
    await assertPages(store);
    await sql`update listings set status = 'publish' where id in (${FIRST_ID + 3}, ${published.id})`.execute(store.db);
    await assertPages(store);
    // Whatever flag a writer gives, the listing's status decides it, on insert and on update.
    await store.db
      .deleteFrom('favourites')
      .where('user_id', '=', USERS.amina)
      .where('listing_id', 'in', [FIRST_ID + 5, FIRST_ID + 6])
      .execute();
    await store.db
      .insertInto('favourites')
      .values([
        { user_id: USERS.amina, listing_id: FIRST_ID + 5, added_at: 2_000_000, listing_published: 1 },
        { user_id: USERS.amina, listing_id: FIRST_ID + 6, added_at: 2_000_001, listing_published: 0 },
      ])
      .execute();
    await assertPages(store);
    await store.db.updateTable('favourites').set({ listing_published: 1 }).where('user_id', '=', USERS.amina).execute();
    await assertPages(store);
    assert.deepEqual(await flagsWrong(store), []);
    // The toggle: removed and added again while the listing is unpublished, then published.
    await sql`update listings set status = 'draft' where id = ${published.id}`.execute(store.db);
    for (let i = 0; i < 2; i++) assert.equal((await toggleFavourite(store, USERS.amina, published.id)).ok, true);
    await assertPages(store);
    await sql`update listings set status = 'publish' where id = ${published.id}`.execute(store.db);
    await assertPages(store);
    assert.deepEqual(await flagsWrong(store), []);
  });

  it('orders a favourite added with a concurrent change of its listing, either first (PostgreSQL)', async (t) => {
    const store = await marketplaceStore(t);
    if (store.dialect !== 'postgres') return t.skip('SQLite runs one writer at a time');
    const add = () => store.db.insertInto('favourites').values({ user_id: USERS.amina, listing_id: LISTINGS.bike, added_at: 1 }).execute();
    const setStatus = (db: typeof store.db, status: string) =>
      sql`update listings set status = ${status} where id = ${LISTINGS.bike}`.execute(db);
    await store.db.deleteFrom('favourites').where('listing_id', '=', LISTINGS.bike).execute();
    /** `first` runs in a transaction kept open while `second` starts on another connection; then both end. */
    const overlapping = async (first: (db: typeof store.db) => Promise<unknown>, second: () => Promise<unknown>) => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let started!: () => void;
      const begun = new Promise<void>((resolve) => (started = resolve));
      const one = store.db.transaction().execute(async (trx) => {
        await first(trx);
        started();
        await held;
      });
      await begun;
      const two = second();
      await new Promise((resolve) => setTimeout(resolve, 200));
      release();
      await Promise.all([one, two]);
    };
    // The listing unpublished, not yet committed, when the favourite is added: the add waits for it.
    await overlapping((db) => setStatus(db, 'draft'), add);
    assert.deepEqual(await flagsWrong(store), []);
    await store.db.deleteFrom('favourites').where('listing_id', '=', LISTINGS.bike).execute();
    await setStatus(store.db, 'publish');
    // The favourite added, not yet committed, when the listing is unpublished: the change waits for it.
    await overlapping(
      (db) => db.insertInto('favourites').values({ user_id: USERS.amina, listing_id: LISTINGS.bike, added_at: 1 }).execute(),
      () => setStatus(store.db, 'draft'),
    );
    assert.deepEqual(await flagsWrong(store), []);
  });

  it('sets the flag of the favourites a database already holds when the migration runs', async (t) => {
    const store = await marketplaceStore(t);
    const migration = (store.dialect === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS)['036-favourites-by-user']!;
    await migration.down!(store.db);
    await manyFavourites(store, false);
    await migration.up(store.db);
    assert.deepEqual(await flagsWrong(store), []);
    await assertPages(store);
  });
});

/** The favourites whose flag is not their listing's status: none, ever. */
async function flagsWrong(store: Store): Promise<number[]> {
  const rows = await store.db
    .selectFrom('favourites')
    .innerJoin('listings', 'listings.id', 'favourites.listing_id')
    .select(['favourites.id', 'favourites.listing_published', 'listings.status'])
    .execute();
  return rows.filter((r) => Number(r.listing_published) !== (r.status === 'publish' ? 1 : 0)).map((r) => Number(r.id));
}
