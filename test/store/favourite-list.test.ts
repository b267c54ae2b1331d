/**
 * The favourites list of a reader with many favourites (migration 036,
 * src/store/common/migrations/036-favourites-by-user.ts): every page and the count are what a plain
 * reading of the rules gives (published, neither the listing nor its owner blocked; newest first,
 * the later id first within a millisecond), before and after the reader blocks; and the page walks
 * the reader's favourites in favourites_by_user's order, without sorting them. On SQLite, and on
 * PostgreSQL (there the prepared statement's generic plan, which the store's named statements run).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import type { Store } from '../../src/store/index.js';
import { favouriteListRepository } from '../../src/store/common/favourite-list.js';
import { marketplaceStore } from '../helpers/marketplace-store.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';

const MANY = 600;
const FIRST_ID = 10_000;
const STATUSES = ['publish', 'publish', 'publish', 'draft', 'publish', 'pending', 'publish', 'expired'];

/** MANY listings of youssef's and sara's, some not published; amina favourites them all, several in one millisecond, in shuffled order. */
async function manyFavourites(store: Store): Promise<void> {
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
  await sql`analyze`.execute(store.db);
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
  Plans?: PgPlanNode[];
}
const nodes = (n: PgPlanNode): PgPlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];
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
      assert.match(pagePlan, /SEARCH favourites USING (COVERING )?INDEX favourites_by_user \(user_id=\?\)/);
      assert.doesNotMatch(pagePlan, /TEMP B-TREE/);
      // The count reads each listing's status and owner from listings_state, not from the listing's row.
      assert.match(await plan(count), /SEARCH listings USING COVERING INDEX listings_state \(id=\? AND status=\?\)/);
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
  });
});
