import type { Kysely, RawBuilder } from 'kysely';

/**
 * Reports (listing/report, my/chat/report): who reported what and why, with a copy of the
 * reported messages as JSON text (they stay as reported when the messages change), closed by the
 * operator (`souk reports close`). A listing's report count is its rows of kind `listing`.
 */
export function reportsMigration(types: { serial: RawBuilder<unknown>; int64: 'bigint' | 'integer'; serialPrimaryKey: (c: any) => any }) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('reports')
        .addColumn('id', types.serial, types.serialPrimaryKey)
        .addColumn('reporter_id', types.int64, (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('listing_id', types.int64)
        .addColumn('con_id', types.int64)
        .addColumn('message_id', types.int64)
        .addColumn('reported_user_id', types.int64)
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('messages', 'text', (c) => c.notNull())
        .addColumn('created_at', types.int64, (c) => c.notNull())
        .addColumn('closed_at', types.int64)
        .execute();
      await db.schema.createIndex('reports_by_listing').on('reports').columns(['listing_id', 'kind']).execute();
      await db.schema.createIndex('reports_open').on('reports').columns(['closed_at', 'id']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('reports').ifExists().execute();
    },
  };
}
