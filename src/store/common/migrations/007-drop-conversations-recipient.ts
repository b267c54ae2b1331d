import type { Kysely } from 'kysely';

/**
 * Drops conversations_recipient (recipient_id). No query of Souk's reads it, yet every new
 * conversation wrote a page of it: on SQLite a random page more in the commit of each start on a
 * new conversation. An inbox, when the interface gets one, adds the index its own query needs
 * (by sender and by recipient, with the sort it pages by). Users are never deleted, so the
 * foreign key from recipient_id needs no index to find a user's conversations either.
 */
export const dropConversationsRecipientMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex('conversations_recipient').ifExists().execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.createIndex('conversations_recipient').ifNotExists().on('conversations').column('recipient_id').execute();
  },
};
