import type { Kysely, RawBuilder } from 'kysely';

/**
 * Push notifications: the devices' Expo push tokens (one user per token: registering it for
 * another user moves it) and the push outbox, one row per new message and recipient who has a
 * device, written in the message's transaction (a crash between the write and the send loses
 * nothing) and unique per message and recipient (one push per message, whatever happens twice).
 */
export function pushMigration(types: { serial: RawBuilder<unknown>; int64: 'bigint' | 'integer'; serialPrimaryKey: (c: any) => any }) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('push_devices')
        .addColumn('token', 'text', (c) => c.primaryKey())
        .addColumn('user_id', types.int64, (c) => c.notNull())
        // The plugin's `events` list, as JSON text.
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('registered_at', types.int64, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('push_devices_by_user').on('push_devices').columns(['user_id', 'registered_at']).execute();
      await db.schema
        .createTable('push_outbox')
        .addColumn('id', types.serial, types.serialPrimaryKey)
        .addColumn('user_id', types.int64, (c) => c.notNull())
        .addColumn('message_id', types.int64, (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('created_at', types.int64, (c) => c.notNull())
        // pending, sent, skipped or failed.
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', types.int64, (c) => c.notNull())
        .addColumn('last_error', 'text')
        .addUniqueConstraint('push_outbox_once', ['user_id', 'message_id'])
        .execute();
      await db.schema.createIndex('push_outbox_due').on('push_outbox').columns(['status', 'next_attempt_at']).execute();
      await db.schema.createIndex('push_outbox_by_time').on('push_outbox').column('created_at').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('push_outbox').ifExists().execute();
      await db.schema.dropTable('push_devices').ifExists().execute();
    },
  };
}
