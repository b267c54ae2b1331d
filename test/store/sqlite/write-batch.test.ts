/**
 * SQLite's group commit (src/store/sqlite/write-batch.ts): transactions started in one turn of the
 * event loop share a commit, yet each gets the outcome it would have had alone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../../../src/store/index.js';
import { openMarketplaceStore } from '../../helpers/store.js';
import { openSqlite } from '../../../src/store/sqlite/driver.js';
import { toggleFavourite } from '../../../src/domain/favourites.js';
import { LISTINGS, USERS } from '../../helpers/fixtures.js';

// The busy timeout is the statement timeout: short, for the test that holds the write lock.
const OPTIONS = { poolSize: 1, statementTimeoutMs: 200, connectTimeoutMs: 2000 };

describe('SQLite write batch', () => {
  let dir: string;
  let store: Store;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'souk-batch-'));
    store = await openMarketplaceStore(`sqlite:${path()}`, OPTIONS);
  });

  const path = () => join(dir, 'souk.db');

  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const favouritesOf = async (userId: number) => store.repos.favourites.listIds(userId);

  it('runs transactions started together in their order, each seeing the ones before it', async () => {
    const results = await Promise.all([1, 2, 3].map(() => toggleFavourite(store, USERS.sara, LISTINGS.bike)));
    assert.deepEqual(results, [
      { ok: true, favouriteIds: [LISTINGS.bike] },
      { ok: true, favouriteIds: [] },
      { ok: true, favouriteIds: [LISTINGS.bike] },
    ]);
    assert.deepEqual(await favouritesOf(USERS.sara), [LISTINGS.bike]);
  });

  it('hands its commits to the WAL flusher, which syncs the WAL in the background', async () => {
    const before = store.walSyncs() ?? -1;
    assert.ok(before >= 0, 'a file database has a WAL flusher');
    await toggleFavourite(store, USERS.sara, LISTINGS.table);
    await toggleFavourite(store, USERS.sara, LISTINGS.table);
    for (let i = 0; i < 200 && store.walSyncs() === before; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(store.walSyncs()! > before);
  });

  it('a failing member rolls back alone: the others commit and get their own results', async () => {
    const failure = new Error('this member fails after writing');
    const outcomes = await Promise.allSettled([
      toggleFavourite(store, USERS.amina, LISTINGS.table),
      store.transaction(async (repos) => {
        await repos.favourites.toggle(USERS.youssef, LISTINGS.table, Date.now());
        throw failure;
      }),
      toggleFavourite(store, USERS.youssef, LISTINGS.bike),
    ]);
    assert.deepEqual(outcomes, [
      { status: 'fulfilled', value: { ok: true, favouriteIds: [LISTINGS.table] } },
      { status: 'rejected', reason: failure },
      { status: 'fulfilled', value: { ok: true, favouriteIds: [LISTINGS.bike] } },
    ]);
    assert.deepEqual(await favouritesOf(USERS.amina), [LISTINGS.table]);
    assert.deepEqual(await favouritesOf(USERS.youssef), [LISTINGS.bike], 'the failed member wrote nothing');
  });

  it('a member that breaks a constraint gets the database error; its batch mates still commit', async () => {
    const outcomes = await Promise.allSettled([
      // No such user: the favourite's foreign key to users refuses it.
      store.transaction((repos) => repos.favourites.toggle(999_999, LISTINGS.bike, Date.now())),
      toggleFavourite(store, USERS.sara, LISTINGS.table),
    ]);
    assert.equal(outcomes[0].status, 'rejected');
    assert.match(String((outcomes[0] as PromiseRejectedResult).reason), /FOREIGN KEY/i);
    assert.deepEqual(outcomes[1], { status: 'fulfilled', value: { ok: true, favouriteIds: [LISTINGS.bike, LISTINGS.table] } });
  });

  it('waits for an open catalog transaction instead of running inside it', async () => {
    let releaseImport!: () => void;
    const importHeld = new Promise<void>((resolve) => (releaseImport = resolve));
    const removal = store.catalogTransaction(async (catalog) => {
      await catalog.deleteListings([LISTINGS.table]);
      await importHeld;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const toggle = toggleFavourite(store, USERS.amina, LISTINGS.table);
    let toggled = false;
    void toggle.then(() => (toggled = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(toggled, false, 'the toggle waited for the catalog transaction');
    releaseImport();
    await removal;
    assert.deepEqual(await toggle, { ok: false, error: 'listing_not_found' }, 'and then saw its committed result');
  });

  it('while another process holds the write lock, every member gets the busy error; then writes go on', async () => {
    const other = openSqlite(path(), 0);
    other.exec('begin immediate');
    const outcomes = await Promise.allSettled([1, 2, 3].map(() => toggleFavourite(store, USERS.amina, LISTINGS.bike)));
    other.exec('rollback');
    other.close();
    for (const outcome of outcomes) {
      assert.equal(outcome.status, 'rejected');
      assert.match(String((outcome as PromiseRejectedResult).reason), /locked|busy/i);
    }
    assert.deepEqual(await toggleFavourite(store, USERS.amina, LISTINGS.bike), { ok: true, favouriteIds: [LISTINGS.bike] });
    assert.deepEqual(await toggleFavourite(store, USERS.amina, LISTINGS.bike), { ok: true, favouriteIds: [] });
  });

  it('a batch larger than one commit answers every member', async () => {
    const users = [USERS.amina, USERS.youssef, USERS.sara];
    const toggles = Array.from({ length: 150 }, (_, i) => toggleFavourite(store, users[i % 3]!, LISTINGS.bike));
    const results = await Promise.all(toggles);
    assert.equal(results.length, 150);
    assert.ok(results.every((r) => r.ok));
    // 50 toggles per user: each ends where it started.
    assert.deepEqual(await favouritesOf(USERS.amina), []);
    assert.deepEqual(await favouritesOf(USERS.youssef), [LISTINGS.bike]);
    assert.deepEqual(await favouritesOf(USERS.sara), [LISTINGS.bike]);
  });
});
