import { sql, type Kysely } from 'kysely';

/**
 * A user's favourites newest first (GET my/favourites), and how many of them the list shows, each
 * read from one range of one index, `favourites_by_user` (user_id, listing_published, added_at, id,
 * listing_id): the listing's id too, so that neither reads the favourites' rows.
 *
 * `listing_published` (1 or 0) is whether the favourite's listing is published: the list shows only
 * those. The database keeps it, so that no path writing favourites or listings has to (the toggle,
 * the site import, rows inserted directly, a listing's status changed by the catalog import or by
 * hand): a favourite written takes its listing's status, whatever value it was given; a listing's
 * status change that makes it published or unpublished sets the flag of its favourites.
 * Invariant: `listing_published` = (the listing's status = 'publish') for every favourite.
 *
 * With the flag, the page walks the user's published favourites in the index's order and stops after
 * the 20 it shows; the count reads the same range of the index alone, where it read each favourite's
 * listing for its status (5,000 listings for the heaviest readers: 10 ms on PostgreSQL). One entry
 * for each favourite added or removed (the toggle), as before; a listing's change of
 * published-ness updates each of its favourites.
 */
/**
 * The column, its backfill and the index, on both databases. The column comes as 1 (published: what
 * most favourites are); only the others are written, so that the backfill does not write every row
 * again (on PostgreSQL, a second version of each, which the count would then visit until a vacuum).
 */
async function addFlag(db: Kysely<any>): Promise<void> {
  await sql`alter table favourites add column listing_published integer not null default 1`.execute(db);
  await sql`update favourites set listing_published = 0
    where not exists (select 1 from listings l where l.id = favourites.listing_id and l.status = 'publish')`.execute(db);
  await db.schema
    .createIndex('favourites_by_user')
    .on('favourites')
    .columns(['user_id', 'listing_published', 'added_at', 'id', 'listing_id'])
    .execute();
}

async function dropFlag(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('favourites_by_user').ifExists().execute();
  await sql`alter table favourites drop column listing_published`.execute(db);
}

/** SQLite: whether the favourite's listing is published, read from listings_state (migration 004). */
const listingPublishedSqlite = sql`exists (select 1 from listings indexed by listings_state where id = new.listing_id and status = 'publish')`;

export const sqliteFavouritesByUserMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await addFlag(db);
    // SQLite cannot change the new row before it is written: the row is corrected after, when it
    // needs to be. A row with the right flag costs one lookup in listings_state, whose page
    // migration 005's trigger has just read; the default (1, published: what most favourites are)
    // spares the toggle and an import the second write for most rows. An update of the flag or the
    // listing is corrected the same way.
    for (const [name, event] of [
      ['listing_published_on_insert', 'insert'],
      ['listing_published_on_update', 'update of listing_id, listing_published'],
    ] as const) {
      await sql`create trigger ${sql.raw(name)} after ${sql.raw(event)} on favourites
        when new.listing_published <> ${listingPublishedSqlite}
        begin update favourites set listing_published = ${listingPublishedSqlite} where id = new.id; end`.execute(db);
    }
    await sql`create trigger listing_published_follows_status after update of status on listings
      when (old.status = 'publish') <> (new.status = 'publish')
      begin update favourites set listing_published = (new.status = 'publish') where listing_id = new.id; end`.execute(db);
  },
  async down(db: Kysely<any>): Promise<void> {
    for (const name of ['listing_published_follows_status', 'listing_published_on_update', 'listing_published_on_insert']) {
      await sql`drop trigger if exists ${sql.raw(name)}`.execute(db);
    }
    await dropFlag(db);
  },
};

/**
 * A row trigger before the favourite is written sets the flag from its listing, read by its primary
 * key (the foreign key's check reads the same row after): no second write of the row, and a bulk
 * insert of 100,000 favourites pays one lookup each (docs/benchmark.md). FOR SHARE orders it with a
 * concurrent change of the listing's status: without it a favourite added while its listing was
 * unpublished, in transactions that commit together, would keep the status read before.
 */
const postgresStatements = {
  create: [
    sql`create function listing_published_on_write() returns trigger language plpgsql as $$
      declare
        published integer;
      begin
        select cast(status = 'publish' as integer) into published from listings where id = new.listing_id for share;
        new.listing_published := coalesce(published, 0);
        return new;
      end $$`,
    sql`create trigger listing_published_on_insert before insert on favourites
      for each row execute function listing_published_on_write()`,
    // Not when the status trigger below sets the flag: it has just read the listing.
    sql`create trigger listing_published_on_update before update of listing_id, listing_published on favourites
      for each row when (pg_trigger_depth() = 0) execute function listing_published_on_write()`,
    sql`create function listing_published_follows_status() returns trigger language plpgsql as $$
      begin
        update favourites set listing_published = cast(new.status = 'publish' as integer) where listing_id = new.id;
        return null;
      end $$`,
    sql`create trigger listing_published_follows_status after update of status on listings
      for each row when ((old.status = 'publish') is distinct from (new.status = 'publish'))
      execute function listing_published_follows_status()`,
  ],
  drop: [
    sql`drop trigger if exists listing_published_follows_status on listings`,
    sql`drop function if exists listing_published_follows_status()`,
    sql`drop trigger if exists listing_published_on_update on favourites`,
    sql`drop trigger if exists listing_published_on_insert on favourites`,
    sql`drop function if exists listing_published_on_write()`,
  ],
};

export const favouritesByUserMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await addFlag(db);
    // Created in the schema being migrated (the first of search_path), as the tables are.
    for (const statement of postgresStatements.create) await statement.execute(db);
  },
  async down(db: Kysely<any>): Promise<void> {
    for (const statement of postgresStatements.drop) await statement.execute(db);
    await dropFlag(db);
  },
};
