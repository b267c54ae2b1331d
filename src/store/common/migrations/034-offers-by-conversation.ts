import { sql, type Kysely } from 'kysely';

/**
 * An offer's checks read only the conversation's offers: the sender's offers of the last day (the
 * daily limit) and the pending ones (an accept declines them). Without this index each read went
 * through every message the sender wrote in the conversation, tens of milliseconds in one of
 * 100,000 messages. Partial: a text message, the common case, adds no entry. The reads say
 * `type = 'offer'` as a literal, so that the planners (and PostgreSQL's generic plans) can use it.
 */
export const offersByConversationMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`create index messages_offers on messages (con_id, source_id, created_at) where type = 'offer'`.execute(db);
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex('messages_offers').ifExists().execute();
  },
};
