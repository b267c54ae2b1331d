/**
 * The MySQL form of the shared 029-message-edits: a sender's corrections of their messages, the
 * text before and after, in a table of Souk's own (the messages' table is the plugin's), with the
 * message's conversation and sender (the retention and the erasure delete by those).
 */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from '../context.js';
import { key, TABLE_OPTIONS } from './table-options.js';

export function soukMessageEditsMigration(t: Tables): Migration {
  return {
    async up(db) {
      await sql`create table if not exists ${T(t.soukMessageEdits)} (
        id bigint unsigned not null auto_increment primary key,
        message_id bigint unsigned not null,
        con_id bigint unsigned not null,
        source_id bigint unsigned not null,
        previous_text longtext not null,
        text longtext not null,
        edited_at bigint not null,
        key ${key(t.soukMessageEdits, 'by_message')} (message_id),
        key ${key(t.soukMessageEdits, 'by_conversation')} (con_id),
        key ${key(t.soukMessageEdits, 'by_sender')} (source_id)
      ) ${TABLE_OPTIONS}`.execute(db);
    },
    async down(db) {
      await sql`drop table if exists ${T(t.soukMessageEdits)}`.execute(db);
    },
  };
}
