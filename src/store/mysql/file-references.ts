/**
 * FileReferences on a WordPress site's tables. The messages Souk writes record the stored files
 * they name in `{prefix}souk_message_files` (migrations/012), indexed by digest; a row counts while
 * its message still names the digest in the plugin's `attachments` (4.x), so a message the
 * plugin or its admin deleted or emptied no longer keeps a file. The plugin writes messages too
 * (its web chat), without that table: before a file is deleted, the digests no row holds are
 * looked for in `attachments` itself, a few at a time, so that a message the plugin stored naming
 * Souk's file keeps it. A 2.x site's messages have no attachments, and so no files.
 */
import { sql } from 'kysely';
import type { FileReferences } from '../../domain/files/references.js';
import { storedDigestsOf } from '../../domain/files/references.js';
import type { NewMessage } from '../../domain/model.js';
import { rows, T, type Db, type MysqlContext } from './context.js';

/** Digests looked for in one read of the messages' attachments (a scan of the table). */
const SCANNED_AT_ONCE = 50;

export function mysqlFileReferences(db: Db, ctx: MysqlContext): FileReferences {
  const { t } = ctx;
  async function recorded(digests: readonly string[]): Promise<string[]> {
    const found = await rows(
      db,
      sql<{ digest: string }>`select distinct f.digest from ${T(t.soukMessageFiles)} f
        join ${T(t.messages)} m on m.message_id = f.message_id
        where f.digest in (${sql.join(digests)}) and m.attachments like concat('%', f.digest, '%')`,
    );
    return found.map((row) => row.digest);
  }
  /** Of `digests`, those the attachments of any message name; a digest is hex only: nothing in it for LIKE to read as a wildcard. */
  async function named(digests: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < digests.length; i += SCANNED_AT_ONCE) {
      const some = digests.slice(i, i + SCANNED_AT_ONCE);
      const found = await rows(
        db,
        sql<{ attachments: unknown }>`select attachments from ${T(t.messages)}
          where ${sql.join(
            some.map((digest) => sql`attachments like ${`%${digest}%`}`),
            sql` or `,
          )}`,
      );
      const texts = found.map((row) => (typeof row.attachments === 'string' ? row.attachments : JSON.stringify(row.attachments)));
      out.push(...some.filter((digest) => texts.some((text) => text.includes(digest))));
    }
    return out;
  }
  const referenced = async (digests: readonly string[]) => {
    if (digests.length === 0 || !(await ctx.chat()).messageDetails) return new Set<string>();
    const found = new Set(await recorded(digests));
    for (const digest of await named(digests.filter((d) => !found.has(d)))) found.add(digest);
    return found;
  };
  return { referenced, isReferenced: async (digest) => (await referenced([digest])).has(digest) };
}

/** The insert of the stored files a new message names, with its id; undefined when it names none. */
export function messageFilesInsert(ctx: MysqlContext, id: number, m: NewMessage) {
  const digests = storedDigestsOf(m.attachments);
  if (digests.length === 0) return undefined;
  return sql`insert ignore into ${T(ctx.t.soukMessageFiles)} (message_id, con_id, source_id, digest)
    values ${sql.join(digests.map((digest) => sql`(${id}, ${m.conId}, ${m.sourceId}, ${digest})`))}`;
}
