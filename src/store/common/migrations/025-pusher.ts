import type { Kysely, RawBuilder } from 'kysely';

/**
 * Live events on the site's Pusher app (docs/pusher.md): the Pusher outbox, one row per event and
 * user (channel), written in the change's transaction (a crash between the write and the send
 * loses nothing); the sender claims the due rows, oldest first.
 */
export function pusherMigration(types: { serial: RawBuilder<unknown>; int64: 'bigint' | 'integer'; serialPrimaryKey: (c: any) => any }) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('pusher_outbox')
        .addColumn('id', types.serial, types.serialPrimaryKey)
        .addColumn('user_id', types.int64, (c) => c.notNull())
        // The plugin's event name (message.new, conversation.unread, ...).
        .addColumn('name', 'text', (c) => c.notNull())
        // The domain event it came from, JSON text.
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('created_at', types.int64, (c) => c.notNull())
        // pending, sent or failed.
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', types.int64, (c) => c.notNull())
        .addColumn('last_error', 'text')
        .addColumn('sent_at', types.int64)
        .execute();
      await db.schema.createIndex('pusher_outbox_due').on('pusher_outbox').columns(['status', 'next_attempt_at']).execute();
      await db.schema.createIndex('pusher_outbox_by_time').on('pusher_outbox').column('created_at').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('pusher_outbox').ifExists().execute();
    },
  };
}
