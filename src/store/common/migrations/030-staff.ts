import type { Kysely, RawBuilder } from 'kysely';

/**
 * The console's staff (docs/console.md): one row a member, by e-mail; the set-up token kept as
 * its SHA-256 only, the password as an argon2id hash; `totp_step` the last TOTP step taken.
 */
export function staffMigration(types: { serial: RawBuilder<unknown>; int64: 'bigint' | 'integer'; serialPrimaryKey: (c: any) => any }) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('staff')
        .addColumn('id', types.serial, types.serialPrimaryKey)
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text')
        .addColumn('totp_secret', 'text')
        .addColumn('totp_step', types.int64, (c) => c.notNull().defaultTo(0))
        .addColumn('setup_digest', 'text', (c) => c.unique())
        .addColumn('setup_expires_at', types.int64)
        .addColumn('credentials_at', types.int64, (c) => c.notNull())
        .addColumn('created_at', types.int64, (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('staff').ifExists().execute();
    },
  };
}
