import type { Kysely, RawBuilder } from 'kysely';

/**
 * Blocks (privacy/user/block, privacy/listing/block): who blocked whom, and which listings a user
 * blocked. The id keeps the order of blocking, which the lists follow, as the plugin's do; the
 * pair is unique (blocking twice keeps one entry). `user_blocks_by_blocked` serves the checks
 * from the blocked side (has anyone blocked this sender?).
 */
export function blocksMigration(types: { serial: RawBuilder<unknown>; int64: 'bigint' | 'integer'; serialPrimaryKey: (c: any) => any }) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('user_blocks')
        .addColumn('id', types.serial, types.serialPrimaryKey)
        .addColumn('blocker_id', types.int64, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('blocked_id', types.int64, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', types.int64, (c) => c.notNull())
        .addUniqueConstraint('user_blocks_pair', ['blocker_id', 'blocked_id'])
        .execute();
      await db.schema.createIndex('user_blocks_by_blocked').on('user_blocks').columns(['blocked_id', 'blocker_id']).execute();
      await db.schema
        .createTable('listing_blocks')
        .addColumn('id', types.serial, types.serialPrimaryKey)
        .addColumn('user_id', types.int64, (c) => c.notNull().references('users.id').onDelete('cascade'))
        // A removed listing leaves every block list, as it leaves every favourite list.
        .addColumn('listing_id', types.int64, (c) => c.notNull().references('listings.id').onDelete('cascade'))
        .addColumn('created_at', types.int64, (c) => c.notNull())
        .addUniqueConstraint('listing_blocks_pair', ['user_id', 'listing_id'])
        .execute();
      await db.schema.createIndex('listing_blocks_by_listing').on('listing_blocks').column('listing_id').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('listing_blocks').ifExists().execute();
      await db.schema.dropTable('user_blocks').ifExists().execute();
    },
  };
}
