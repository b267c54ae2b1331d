import type { Kysely } from 'kysely';

/**
 * An index of each listing's status and version, which the toggle and the listing cache read on
 * every request (sqlite/repositories.ts names it with INDEXED BY). SQLite reads a listing by its
 * rowid as its whole row, a 4 KB page of image JSON; PostgreSQL reads such a lookup's row alone
 * and has no such index.
 */
export const listingStateIndexMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.createIndex('listings_state').on('listings').columns(['id', 'status', 'version']).execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex('listings_state').ifExists().execute();
  },
};
