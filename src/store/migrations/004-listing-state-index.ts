import type { Kysely } from 'kysely';
import type { Dialect } from '../schema.js';

/**
 * On SQLite, an index of each listing's status and version, which the toggle and the listing cache
 * read on every request (repositories/marketplace.ts names it with INDEXED BY). PostgreSQL reads
 * such a lookup's row alone and does not need it.
 */
export function listingStateIndexMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (dialect !== 'sqlite') return;
      await db.schema.createIndex('listings_state').on('listings').columns(['id', 'status', 'version']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      if (dialect !== 'sqlite') return;
      await db.schema.dropIndex('listings_state').ifExists().execute();
    },
  };
}
