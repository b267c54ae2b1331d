import type { Kysely } from 'kysely';
import { digestsOfAttachmentsColumn } from '../file-references.js';

const PAGE = 1000;

/**
 * The stored files each message names (message_files), by content digest, so that the sweep and
 * a message's deletion look a digest up in an index instead of reading every message's
 * attachments. Written with the message, gone with it (the cascade) or with its attachments;
 * filled here from the messages stored before.
 */
export const messageFilesMigration = (int64: 'integer' | 'bigint') => ({
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('message_files')
      .addColumn('message_id', int64, (c) => c.notNull().references('messages.id').onDelete('cascade'))
      .addColumn('digest', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('message_files_pk', ['message_id', 'digest'])
      .execute();
    await db.schema.createIndex('message_files_by_digest').on('message_files').column('digest').execute();
    for (let after = 0; ;) {
      const rows: { id: number | string; attachments: string }[] = await db
        .selectFrom('messages')
        .select(['id', 'attachments'])
        .where('attachments', 'is not', null)
        .where('id', '>', after)
        .orderBy('id')
        .limit(PAGE)
        .execute();
      const found = rows.flatMap((row) =>
        digestsOfAttachmentsColumn(row.attachments).map((digest) => ({ message_id: Number(row.id), digest })),
      );
      // 500 rows, 1000 parameters a statement: within every database's limit.
      for (let i = 0; i < found.length; i += 500)
        await db
          .insertInto('message_files')
          .values(found.slice(i, i + 500))
          .execute();
      if (rows.length < PAGE) return;
      after = Number(rows[rows.length - 1]!.id);
    }
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('message_files').ifExists().execute();
  },
});
