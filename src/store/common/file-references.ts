/** FileReferences on Souk's own schema (SQLite, PostgreSQL): the messages' attachments column. */
import type { Kysely } from 'kysely';
import type { FileReferences } from '../../domain/files/references.js';
import type { Database } from './schema.js';

const PAGE = 1000;

export function fileReferences(db: Kysely<Database>): FileReferences {
  return {
    async isReferenced(digest) {
      // A digest is hex only: nothing in it for LIKE to read as a wildcard.
      const row = await db.selectFrom('messages').select('id').where('attachments', 'like', `%${digest}%`).limit(1).executeTakeFirst();
      return row !== undefined;
    },
    async *allAttachments() {
      for (let after = 0; ;) {
        const rows = await db
          .selectFrom('messages')
          .select(['id', 'attachments'])
          .where('attachments', 'is not', null)
          .where('id', '>', after)
          .orderBy('id')
          .limit(PAGE)
          .execute();
        for (const row of rows) if (row.attachments !== null) yield row.attachments;
        if (rows.length < PAGE) return;
        after = rows[rows.length - 1]!.id;
      }
    },
  };
}
