import { sql, type Kysely } from 'kysely';

/**
 * What the console looks up (docs/console.md), each by an index: the reports against a user (their
 * page), a listing's conversations, and users by display name whatever its case. New
 * conversations and users are rare beside messages; messages get no index here.
 */
export const consoleLookupsMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.createIndex('reports_by_reported').on('reports').columns(['reported_user_id', 'id']).execute();
    await db.schema.createIndex('conversations_by_listing').on('conversations').columns(['listing_id', 'id']).execute();
    await sql`create index users_name_lower on users (lower(name))`.execute(db);
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex('users_name_lower').ifExists().execute();
    await db.schema.dropIndex('conversations_by_listing').ifExists().execute();
    await db.schema.dropIndex('reports_by_reported').ifExists().execute();
  },
};
