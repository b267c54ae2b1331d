import type { Kysely } from 'kysely';

/**
 * The session that registered each push device (domain/push.ts): its token's revocation digest and
 * expiry. A device registered before has none ('' and 0): it may move at its next registration,
 * as every device could before; registering it again binds it.
 */
export const pushDeviceSessionsMigration = (int64: 'integer' | 'bigint') => ({
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .alterTable('push_devices')
      .addColumn('session', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable('push_devices')
      .addColumn('session_expires_at', int64, (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('push_devices').dropColumn('session_expires_at').execute();
    await db.schema.alterTable('push_devices').dropColumn('session').execute();
  },
});
