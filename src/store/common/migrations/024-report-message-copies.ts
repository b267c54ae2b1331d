import type { Kysely } from 'kysely';

/**
 * Reported messages kept once each (docs/safety.md): `report_message_copies` holds a message as it
 * was when first reported, `report_messages` which reports name it. A report made before this
 * keeps its own copies in `reports.messages`; later ones leave that `[]`. `reports_by_reporter`
 * finds a reporter's open reports (one per conversation or listing).
 */
export const reportMessageCopiesMigration = (int64: 'integer' | 'bigint') => ({
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('report_message_copies')
      .addColumn('message_id', int64, (c) => c.primaryKey())
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('created_at', int64, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('report_messages')
      .addColumn('report_id', int64, (c) => c.notNull().references('reports.id').onDelete('cascade'))
      .addColumn('message_id', int64, (c) => c.notNull())
      .addPrimaryKeyConstraint('report_messages_pk', ['report_id', 'message_id'])
      .execute();
    await db.schema.createIndex('report_messages_by_message').on('report_messages').column('message_id').execute();
    await db.schema.createIndex('reports_by_reporter').on('reports').columns(['reporter_id', 'closed_at']).execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex('reports_by_reporter').ifExists().execute();
    await db.schema.dropTable('report_messages').ifExists().execute();
    await db.schema.dropTable('report_message_copies').ifExists().execute();
  },
});
