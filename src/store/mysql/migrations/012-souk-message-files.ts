/**
 * The MySQL form of the shared 023-message-files: the stored files each message Souk wrote names,
 * by content digest, with the message's conversation and sender (the retention and the erasure
 * delete by those). Filled here from the messages' `attachments` (4.x; a 2.x site's messages have
 * none).
 */
import { sql, type Migration } from 'kysely';
import { digestsOfAttachmentsColumn } from '../../common/file-references.js';
import { T, type Tables } from '../context.js';
import { key, TABLE_OPTIONS } from './table-options.js';

const PAGE = 1000;

export function soukMessageFilesMigration(t: Tables): Migration {
  return {
    async up(db) {
      await sql`create table if not exists ${T(t.soukMessageFiles)} (
        message_id bigint unsigned not null,
        con_id bigint unsigned not null,
        source_id bigint unsigned not null,
        digest char(64) not null,
        primary key (message_id, digest),
        key ${key(t.soukMessageFiles, 'by_digest')} (digest),
        key ${key(t.soukMessageFiles, 'by_conversation')} (con_id),
        key ${key(t.soukMessageFiles, 'by_sender')} (source_id)
      ) ${TABLE_OPTIONS}`.execute(db);
      const columns = await sql<{ name: string }>`select column_name as name from information_schema.columns
        where table_schema = database() and table_name = ${t.messages} and column_name = 'attachments'`.execute(db);
      if (columns.rows.length === 0) return;
      for (let after = 0; ;) {
        const page = await sql<{ id: number | string; con_id: number | string; source_id: number | string; attachments: unknown }>`
          select message_id as id, con_id, source_id, attachments from ${T(t.messages)}
          where attachments is not null and message_id > ${after} order by message_id limit ${PAGE}`.execute(db);
        const found = page.rows.flatMap((row) =>
          digestsOfAttachmentsColumn(row.attachments).map(
            (digest) => sql`(${Number(row.id)}, ${Number(row.con_id)}, ${Number(row.source_id)}, ${digest})`,
          ),
        );
        for (let i = 0; i < found.length; i += 500) {
          await sql`insert ignore into ${T(t.soukMessageFiles)} (message_id, con_id, source_id, digest)
            values ${sql.join(found.slice(i, i + 500))}`.execute(db);
        }
        if (page.rows.length < PAGE) return;
        after = Number(page.rows[page.rows.length - 1]!.id);
      }
    },
    async down(db) {
      await sql`drop table if exists ${T(t.soukMessageFiles)}`.execute(db);
    },
  };
}
