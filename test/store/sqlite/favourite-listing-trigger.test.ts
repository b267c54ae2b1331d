/**
 * Migration 005 (src/store/sqlite/migrations/005-favourite-listing-trigger.ts): on SQLite, triggers keep
 * favourites.listing_id pointing at a listing, as the foreign key did, and the favourites stored
 * before the migration survive it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Store } from '../../../src/store/index.js';
import { openMarketplaceStore } from '../../helpers/store.js';
import { favouriteListingTriggerMigration } from '../../../src/store/sqlite/migrations/005-favourite-listing-trigger.js';
import { SQLITE_MIGRATIONS } from '../../../src/store/sqlite/migrations/index.js';
import { LISTINGS, USERS } from '../../helpers/fixtures.js';

const OPTIONS = { poolSize: 1, statementTimeoutMs: 2000, connectTimeoutMs: 2000 };
const migration = favouriteListingTriggerMigration;
const later = SQLITE_MIGRATIONS['036-favourites-by-user']!;

describe('SQLite favourites: listing triggers (migration 005)', () => {
  let dir: string;
  let store: Store;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'souk-fav-trigger-'));
    store = await openMarketplaceStore(`sqlite:${join(dir, 'souk.db')}`, OPTIONS);
    // Migration 036 keeps a column of favourites with triggers, one of them on listings naming
    // favourites: taken down while 005 rebuilds the table under it, and put back after (as the
    // migrations run: 005 before 036).
    await later.down!(store.db);
  });

  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rows = async () =>
    (
      await sql<{ id: number; user_id: number; listing_id: number; added_at: number }>`select * from favourites order by id`.execute(
        store.db,
      )
    ).rows;
  const listingReferences = async () =>
    (await sql<{ table: string }>`select "table" from pragma_foreign_key_list('favourites')`.execute(store.db)).rows
      .map((r) => r.table)
      .sort();
  const insert = (userId: number, listingId: number) =>
    sql`insert into favourites (user_id, listing_id, added_at) values (${userId}, ${listingId}, 1)`.execute(store.db);

  it('keeps every favourite stored under the foreign key, and running it again changes nothing', async () => {
    await migration.down(store.db);
    assert.deepEqual(await listingReferences(), ['listings', 'users']);
    await insert(USERS.amina, LISTINGS.bike);
    await insert(USERS.sara, LISTINGS.table);
    const before = await rows();
    assert.equal(before.length, 2);

    await migration.up(store.db);
    assert.deepEqual(await listingReferences(), ['users']);
    assert.deepEqual(await rows(), before);
    await migration.up(store.db);
    assert.deepEqual(await rows(), before);
    const triggers = await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'trigger' and name like 'favourites%' order by name`.execute(store.db);
    assert.deepEqual(
      triggers.rows.map((r) => r.name),
      ['favourites_follow_listing', 'favourites_listing_exists', 'favourites_listing_stays'],
    );
    // 036 goes back over the rebuilt table; the other tests run with it, as a database does.
    await later.up(store.db);
  });

  it('refuses a favourite of a listing that does not exist, on insert and on update', async () => {
    await assert.rejects(insert(USERS.amina, 999_999), /FOREIGN KEY constraint failed/);
    await assert.rejects(sql`update favourites set listing_id = 999_999`.execute(store.db), /FOREIGN KEY constraint failed/);
    await assert.rejects(insert(999_999, LISTINGS.bike), /FOREIGN KEY constraint failed/, 'the users foreign key stays');
  });

  it('removes a deleted listing from every favourite list, as the cascade did', async () => {
    await insert(USERS.youssef, LISTINGS.bike);
    await sql`delete from listings where id = ${LISTINGS.bike}`.execute(store.db);
    assert.deepEqual(
      (await rows()).map((r) => r.listing_id),
      [LISTINGS.table],
    );
  });
});
