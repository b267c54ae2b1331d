import type { Kysely } from 'kysely';

/**
 * Revocations named by their token's subject (the user) and issue time, so that each subject's
 * are capped (auth/revoked-tokens.ts): a row is a signed-out token (`digest`, the SHA-256 of its
 * jti) or a mark (`digest` `<=iat`: every token of the subject issued up to then). The old rows
 * are dropped: they named tokens without Souk's mark, which are refused anyway since finding 1.
 */
export const revocationsBySubjectMigration = (int64: 'integer' | 'bigint') => ({
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('revoked_tokens').ifExists().execute();
    await db.schema
      .createTable('revoked_tokens')
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('issued_at', int64, (c) => c.notNull())
      .addColumn('expires_at', int64, (c) => c.notNull())
      .addColumn('revoked_at', int64, (c) => c.notNull())
      .addPrimaryKeyConstraint('revoked_tokens_key', ['subject', 'digest'])
      .execute();
    await db.schema.createIndex('revoked_tokens_by_time').on('revoked_tokens').column('revoked_at').execute();
    await db.schema.createIndex('revoked_tokens_by_expiry').on('revoked_tokens').column('expires_at').execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('revoked_tokens').ifExists().execute();
    await db.schema
      .createTable('revoked_tokens')
      .addColumn('digest', 'text', (c) => c.primaryKey())
      .addColumn('expires_at', int64, (c) => c.notNull())
      .addColumn('revoked_at', int64, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('revoked_tokens_by_time').on('revoked_tokens').column('revoked_at').execute();
  },
});
