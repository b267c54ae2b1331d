import type { Kysely, RawBuilder } from 'kysely';

/**
 * The webhook outbox: one row per event and receiver, written in the transaction of the change
 * (so a crash between the write and the send loses nothing: the row is there after a restart),
 * sent by a delivery loop (src/events/webhooks.ts) until a 2xx answer, retried with backoff, then
 * kept as failed. `message_id` is the event's Standard Webhooks id, the same for every receiver
 * and every attempt, so that receivers can drop a repeat.
 */
export function webhooksMigration(types: { serial: RawBuilder<unknown>; int64: 'bigint' | 'integer'; serialPrimaryKey: (c: any) => any }) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('webhook_outbox')
        .addColumn('id', types.serial, types.serialPrimaryKey)
        .addColumn('message_id', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('user_id', types.int64, (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('created_at', types.int64, (c) => c.notNull())
        // Retries stop RETRY_FOR after this: the event's time, or when `souk webhooks retry|replay` sent it again.
        .addColumn('window_from', types.int64, (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', types.int64, (c) => c.notNull())
        .addColumn('last_error', 'text')
        .addColumn('delivered_at', types.int64)
        .execute();
      await db.schema.createIndex('webhook_outbox_due').on('webhook_outbox').columns(['status', 'next_attempt_at']).execute();
      await db.schema.createIndex('webhook_outbox_by_time').on('webhook_outbox').column('created_at').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('webhook_outbox').ifExists().execute();
    },
  };
}
