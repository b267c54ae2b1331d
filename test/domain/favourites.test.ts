/** The toggle use case (src/domain/favourites.ts) on a real store, without HTTP. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { toggleFavourite } from '../../src/domain/favourites.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { marketplaceStore } from '../helpers/marketplace-store.js';

it('adds a listing, then removes it; the list keeps the order of addition', async (t) => {
  const store = await marketplaceStore(t);
  assert.deepEqual(await toggleFavourite(store, USERS.amina, LISTINGS.bike, 1000), { ok: true, favouriteIds: [LISTINGS.bike] });
  assert.deepEqual(await toggleFavourite(store, USERS.amina, LISTINGS.table, 2000), {
    ok: true,
    favouriteIds: [LISTINGS.bike, LISTINGS.table],
  });
  assert.deepEqual(await toggleFavourite(store, USERS.amina, LISTINGS.bike, 3000), { ok: true, favouriteIds: [LISTINGS.table] });
  assert.deepEqual(await store.repos.favourites.listIds(USERS.youssef), [], "another user's list is untouched");
});

it('refuses a listing that does not exist or is in the trash, and writes nothing', async (t) => {
  const store = await marketplaceStore(t);
  for (const listingId of [999_999, LISTINGS.trashed]) {
    assert.deepEqual(await toggleFavourite(store, USERS.amina, listingId), { ok: false, error: 'listing_not_found' });
  }
  assert.deepEqual(await store.repos.favourites.listIds(USERS.amina), []);
});

it("accepts listings in any other status (draft, expired) and the caller's own", async (t) => {
  const store = await marketplaceStore(t);
  for (const listingId of [LISTINGS.draft, LISTINGS.table, LISTINGS.aminasOwn]) {
    assert.equal((await toggleFavourite(store, USERS.amina, listingId)).ok, true);
  }
  assert.deepEqual(await store.repos.favourites.listIds(USERS.amina), [LISTINGS.draft, LISTINGS.table, LISTINGS.aminasOwn]);
});

it("one user's concurrent toggles of one listing run one at a time: an odd count leaves it listed once", async (t) => {
  const store = await marketplaceStore(t);
  const results = await Promise.all(Array.from({ length: 21 }, (_, i) => toggleFavourite(store, USERS.sara, LISTINGS.bike, 1000 + i)));
  const lengths = results.map((r) => (r.ok ? r.favouriteIds.length : -1)).sort();
  assert.deepEqual(lengths, [...Array(10).fill(0), ...Array(11).fill(1)], 'each toggle saw the one before it');
  assert.deepEqual(await store.repos.favourites.listIds(USERS.sara), [LISTINGS.bike]);
});
