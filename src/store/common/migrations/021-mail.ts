import type { Kysely, RawBuilder } from 'kysely';

/**
 * E-mail when a message waits (docs/mail.md): the mail outbox, one pending row per recipient and
 * conversation (the unique `pending_key`, null once the mail is done: the later messages join the
 * pending row instead of making more mails), written in the message's transaction; until when each
 * user is online; the users' choice of mail.
 */
export function mailMigration(types: { serial: RawBuilder<unknown>; int64: 'bigint' | 'integer'; serialPrimaryKey: (c: any) => any }) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('mail_outbox')
        .addColumn('id', types.serial, types.serialPrimaryKey)
        .addColumn('user_id', types.int64, (c) => c.notNull())
        .addColumn('con_id', types.int64, (c) => c.notNull())
        .addColumn('pending_key', 'text', (c) => c.unique())
        .addColumn('first_message_id', types.int64, (c) => c.notNull())
        .addColumn('last_message_id', types.int64, (c) => c.notNull())
        .addColumn('created_at', types.int64, (c) => c.notNull())
        // pending, sent, skipped or failed.
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', types.int64, (c) => c.notNull())
        .addColumn('last_error', 'text')
        .addColumn('sent_at', types.int64)
        .execute();
      await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['status', 'next_attempt_at']).execute();
      await db.schema.createIndex('mail_outbox_by_conversation').on('mail_outbox').columns(['user_id', 'con_id', 'sent_at']).execute();
      await db.schema.createIndex('mail_outbox_by_time').on('mail_outbox').column('created_at').execute();
      await db.schema
        .createTable('presence')
        .addColumn('user_id', types.int64, (c) => c.primaryKey())
        .addColumn('online_until', types.int64, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('mail_preferences')
        .addColumn('user_id', types.int64, (c) => c.primaryKey())
        .addColumn('email', 'integer', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      for (const table of ['mail_preferences', 'presence', 'mail_outbox']) await db.schema.dropTable(table).ifExists().execute();
    },
  };
}
