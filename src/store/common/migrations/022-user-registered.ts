import type { Kysely } from 'kysely';

/**
 * When each account was made (users.registered_at, ms; null when the import did not say): an account
 * younger than a day gets a quarter of the abuse limits (docs/safety.md).
 */
export const userRegisteredMigration = (int64: 'integer' | 'bigint') => ({
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('users').addColumn('registered_at', int64).execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('users').dropColumn('registered_at').execute();
  },
});
