import type { Kysely, RawBuilder } from 'kysely';

/**
 * Blocks (privacy/user/block, privacy/listing/block): who blocked whom, and which listings a user
 * blocked. The id keeps the order of blocking, which the lists follow, as the plugin's do; the
 * pair is unique (blocking twice keeps one entry). `user_blocks_by_blocked` serves the checks
 * from the blocked side (has anyone blocked this sender?).
 *
 * `users.blocks` counts the blocks a user is party to (blocked someone or a listing, or was
 * blocked; store/common/blocks.ts keeps it): PostgreSQL's writer lock reads it with the lock, so a
 * user at 0 needs no check. It is not in UsersTable: no profile read selects it.
 */
export function blocksMigration(types: { serial: RawBuilder<unknown>; int64: 'bigint' | 'integer'; serialPrimaryKey: (c: any) => any }) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .alterTable('users')
        .addColumn('blocks', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
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
      await db.schema.alterTable('users').dropColumn('blocks').execute();
    },
  };
}
