import { sql, type Kysely } from 'kysely';

/**
 * A user's favourites newest first (GET my/favourites): with `favourites_by_user` the page walks
 * the user's favourites in its order and stops after the 20 it shows, checking each one's listing
 * as it goes, where it sorted all of them (5,000 for the heaviest readers) first. One entry more
 * for each favourite added or removed (the toggle).
 *
 * On SQLite the count of the shown favourites still reads each favourite's listing for its status
 * and owner (the block check): by its rowid that is the listing's whole row, some 4 KB of JSON
 * that is rarely in the cache. `listings_state` (migration 004, which the toggle names with
 * INDEXED BY) gets the owner as well, so that the count reads that small index alone. A listing's
 * write updates that index as before; the favourites' writes do not touch it.
 */
export const favouritesByUserMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.createIndex('favourites_by_user').on('favourites').columns(['user_id', 'added_at', 'id']).execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex('favourites_by_user').ifExists().execute();
  },
};

const listingsState = (db: Kysely<any>, columns: string[]) =>
  sql`create index listings_state on listings (${sql.join(columns.map((c) => sql.ref(c)))})`.execute(db);

export const sqliteFavouritesByUserMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await favouritesByUserMigration.up(db);
    await db.schema.dropIndex('listings_state').execute();
    await listingsState(db, ['id', 'status', 'version', 'owner_id']);
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex('listings_state').execute();
    await listingsState(db, ['id', 'status', 'version']);
    await favouritesByUserMigration.down(db);
  },
};
