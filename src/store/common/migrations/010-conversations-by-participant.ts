import type { Kysely } from 'kysely';

/**
 * GET my/chat lists a user's conversations: those they started (sender_id) and those about their
 * listings (recipient_id). One index per side; each holds the id alone, not the sort key
 * (last_message_id), so that a new message changes no index entry of its conversation.
 */
export const conversationsByParticipantMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.createIndex('conversations_by_sender').ifNotExists().on('conversations').column('sender_id').execute();
    await db.schema.createIndex('conversations_by_recipient').ifNotExists().on('conversations').column('recipient_id').execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex('conversations_by_recipient').ifExists().execute();
    await db.schema.dropIndex('conversations_by_sender').ifExists().execute();
  },
};
