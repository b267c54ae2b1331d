import type { Kysely } from 'kysely';

/**
 * The event log ("Messages as they happen"): each user's events, numbered 1, 2, 3... per user in
 * the order they committed. The number comes from event_sequences, whose row the recording
 * transaction updates and so holds until it commits: one user's events commit in number order
 * on every database, and a stream that saw n has seen every event up to n. Old events are pruned
 * by time (events_by_time); the sequences stay, so a number is never given twice.
 * event_tickets: the single-use tickets a browser's EventSource opens its stream with.
 */
export function eventsMigration(int64: 'bigint' | 'integer') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('event_sequences')
        .addColumn('user_id', int64, (c) => c.primaryKey())
        .addColumn('seq', int64, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('events')
        .addColumn('user_id', int64, (c) => c.notNull())
        .addColumn('seq', int64, (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addPrimaryKeyConstraint('events_pkey', ['user_id', 'seq'])
        .execute();
      await db.schema.createIndex('events_by_time').on('events').column('created_at').execute();
      // A stream's ticket (POST my/events/ticket): taken once, by whichever instance the browser reaches.
      await db.schema
        .createTable('event_tickets')
        .addColumn('digest', 'text', (c) => c.primaryKey())
        .addColumn('user_id', int64, (c) => c.notNull())
        .addColumn('token_digest', 'text', (c) => c.notNull())
        .addColumn('token_expires_at', int64, (c) => c.notNull())
        .addColumn('expires_at', int64, (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('event_tickets').ifExists().execute();
      await db.schema.dropTable('events').ifExists().execute();
      await db.schema.dropTable('event_sequences').ifExists().execute();
    },
  };
}
