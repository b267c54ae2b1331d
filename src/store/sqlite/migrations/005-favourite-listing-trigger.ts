import { sql, type Kysely } from 'kysely';

/**
 * On SQLite, favourites.listing_id is kept valid by triggers instead of a foreign key.
 *
 * SQLite checks a foreign key by reading the parent's row from its table. A listing's row holds
 * its images, about 4 KB: one page per listing, rarely in SQLite's cache, so the check read such a
 * page on every toggle that adds (measured: 7-22 us per insert, 4 with the trigger). Two triggers
 * check the same thing, on insert and on update, in listings_state (migration 004), whose pages
 * stay cached, and fail with the same message; a third does the foreign key's ON DELETE CASCADE
 * (D5). PostgreSQL keeps its foreign key: there the check reads the primary key's index.
 */
export const favouriteListingTriggerMigration = {
  async up(db: Kysely<any>): Promise<void> {
    // SQLite migrations run outside a transaction (Kysely); the rebuild is all or nothing.
    await db.transaction().execute(async (trx) => {
      if (await hasTrigger(trx, 'favourites_listing_exists')) return;
      await rebuildFavourites(trx, '');
      await sql`create trigger favourites_listing_exists before insert on favourites
          when not exists (select 1 from listings indexed by listings_state where id = new.listing_id)
          begin select raise(abort, 'FOREIGN KEY constraint failed'); end`.execute(trx);
      await sql`create trigger favourites_listing_stays before update of listing_id on favourites
          when not exists (select 1 from listings indexed by listings_state where id = new.listing_id)
          begin select raise(abort, 'FOREIGN KEY constraint failed'); end`.execute(trx);
      await sql`create trigger favourites_follow_listing after delete on listings
          begin delete from favourites where listing_id = old.id; end`.execute(trx);
    });
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.transaction().execute(async (trx) => {
      for (const name of ['favourites_listing_exists', 'favourites_listing_stays', 'favourites_follow_listing']) {
        await sql`drop trigger if exists ${sql.id(name)}`.execute(trx);
      }
      await rebuildFavourites(trx, 'references listings(id) on delete cascade');
    });
  },
};

async function hasTrigger(db: Kysely<any>, name: string): Promise<boolean> {
  const rows = await sql`select 1 from sqlite_master where type = 'trigger' and name = ${name}`.execute(db);
  return rows.rows.length > 0;
}

/** SQLite cannot change a column's constraints in place: copy into a new table and swap. */
async function rebuildFavourites(db: Kysely<any>, listingReference: '' | 'references listings(id) on delete cascade'): Promise<void> {
  await sql`create table favourites_rebuilt (
    id integer primary key,
    user_id integer not null references users(id) on delete cascade,
    listing_id integer not null ${sql.raw(listingReference)},
    added_at integer not null,
    constraint favourites_user_listing unique (user_id, listing_id)
  )`.execute(db);
  await sql`insert into favourites_rebuilt (id, user_id, listing_id, added_at)
    select id, user_id, listing_id, added_at from favourites`.execute(db);
  await sql`drop table favourites`.execute(db);
  await sql`alter table favourites_rebuilt rename to favourites`.execute(db);
  await sql`create index favourites_listing on favourites (listing_id)`.execute(db);
}
