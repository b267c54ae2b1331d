import { sql, type Kysely } from 'kysely';

/**
 * Accounts for sign-in (docs/routes.md, "Sign-in" and the user object): the profile fields the
 * user object shows, passwords in a table of their own, and revoked tokens.
 *
 * - The password hash is not a column of users: the request path reads a user's row on every
 *   cache miss, and a hash has no business there. user_credentials is read by sign-in alone.
 * - Sign-in finds a user by login or e-mail whatever their case: an index on each, lower-cased.
 * - A revoked token is kept, by the SHA-256 digest of its text, until it would have expired;
 *   instances poll the rows revoked since their last look (revoked_tokens_by_time).
 */
export function accountsMigration(int64: 'bigint' | 'integer') {
  const profileText = ['first_name', 'last_name', 'description', 'address', 'zipcode', 'latitude', 'longitude'] as const;
  return {
    async up(db: Kysely<any>): Promise<void> {
      for (const column of profileText) {
        await db.schema
          .alterTable('users')
          .addColumn(column, 'text', (c) => c.notNull().defaultTo(''))
          .execute();
      }
      await db.schema
        .alterTable('users')
        .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('users')
        .addColumn('locations', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
      await sql`create index users_login_lower on users (lower(login))`.execute(db);
      await sql`create index users_email_lower on users (lower(email))`.execute(db);
      await db.schema
        .createTable('user_credentials')
        .addColumn('user_id', int64, (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('revoked_tokens')
        .addColumn('digest', 'text', (c) => c.primaryKey())
        .addColumn('expires_at', int64, (c) => c.notNull())
        .addColumn('revoked_at', int64, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('revoked_tokens_by_time').on('revoked_tokens').column('revoked_at').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('revoked_tokens').ifExists().execute();
      await db.schema.dropTable('user_credentials').ifExists().execute();
      await db.schema.dropIndex('users_email_lower').ifExists().execute();
      await db.schema.dropIndex('users_login_lower').ifExists().execute();
      for (const column of [...profileText, 'is_admin', 'locations']) await db.schema.alterTable('users').dropColumn(column).execute();
    },
  };
}
