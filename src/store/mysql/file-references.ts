/**
 * FileReferences on a WordPress site's tables: the plugin's messages keep their attachments as
 * JSON in `attachments` (4.x); a 2.x site's messages have no such column, and so no files.
 */
import { sql } from 'kysely';
import type { FileReferences } from '../../domain/files/references.js';
import { rows, T, type Db, type MysqlContext } from './context.js';

const PAGE = 1000;

export function mysqlFileReferences(db: Db, ctx: MysqlContext): FileReferences {
  const table = T(ctx.t.messages);
  return {
    async isReferenced(digest) {
      if (!(await ctx.chat()).messageDetails) return false;
      // A digest is hex only: nothing in it for LIKE to read as a wildcard.
      const found = await rows(
        db,
        sql<{ id: number }>`select message_id as id from ${table} where attachments like ${`%${digest}%`} limit 1`,
      );
      return found.length > 0;
    },
    async *allAttachments() {
      if (!(await ctx.chat()).messageDetails) return;
      for (let after = 0; ;) {
        const page = await rows(
          db,
          sql<{ id: number; attachments: string }>`select message_id as id, attachments from ${table}
            where attachments is not null and attachments <> '' and message_id > ${after} order by message_id limit ${PAGE}`,
        );
        for (const row of page) yield String(row.attachments);
        if (page.length < PAGE) return;
        after = Number(page[page.length - 1]!.id);
      }
    },
  };
}
