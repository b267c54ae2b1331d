import type { Kysely } from 'kysely';

/**
 * Moderation's marks on a user (domain/moderation.ts): disabled by the operator, and erased. The
 * users row keeps `disabled` (sign-in and the auth pipeline read it); this row says why, so that an
 * import does not enable a user the operator disabled, nor bring back an erased profile, and
 * `souk users enable` refuses an erased user.
 */
export const userModerationMigration = (int64: 'integer' | 'bigint') => ({
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('user_moderation')
      .addColumn('user_id', int64, (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('disabled_at', int64)
      .addColumn('erased_at', int64)
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('user_moderation').ifExists().execute();
  },
});
