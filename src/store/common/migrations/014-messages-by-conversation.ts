import type { Kysely } from 'kysely';

/**
 * A conversation's messages in id order: GET my/chat/conversation, the route the apps poll every
 * 5-15 s, reads the latest page of them. messages_by_sender (con_id, source_id, ...) finds them but
 * in sender order, so every poll sorted them (SQLite: a temporary B-tree per read). Migration 002
 * dropped this index to spare each stored message one index write; a conversation is read many
 * times for each message written to it, so the reads' sort is the dearer one.
 */
export const messagesByConversationMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.createIndex('messages_by_conversation').ifNotExists().on('messages').columns(['con_id', 'id']).execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex('messages_by_conversation').ifExists().execute();
  },
};
