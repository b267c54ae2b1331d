import type { Kysely, RawBuilder } from 'kysely';

/**
 * A sender's corrections of their messages (docs/chat-plus.md): one row per edit with the text
 * before and after, for the moderators and the sender's export. Gone with the message (the
 * cascade), with its removal, and with an erasure of its sender (`by_sender`).
 */
export function messageEditsMigration(types: {
  serial: RawBuilder<unknown>;
  int64: 'bigint' | 'integer';
  serialPrimaryKey: (c: any) => any;
}) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('message_edits')
        .addColumn('id', types.serial, types.serialPrimaryKey)
        .addColumn('message_id', types.int64, (c) => c.notNull().references('messages.id').onDelete('cascade'))
        .addColumn('con_id', types.int64, (c) => c.notNull())
        .addColumn('source_id', types.int64, (c) => c.notNull())
        .addColumn('previous_text', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('edited_at', types.int64, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('message_edits_by_message').on('message_edits').column('message_id').execute();
      await db.schema.createIndex('message_edits_by_sender').on('message_edits').column('source_id').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('message_edits').ifExists().execute();
    },
  };
}
