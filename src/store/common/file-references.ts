/** FileReferences on Souk's own schema (SQLite, PostgreSQL): the message_files table (migration 023). */
import type { Kysely } from 'kysely';
import type { FileReferences } from '../../domain/files/references.js';
import { storedDigestsOf } from '../../domain/files/references.js';
import type { MessageAttachment } from '../../domain/model.js';
import type { QueryRunner } from './prepared.js';
import type { Database } from './schema.js';

export function fileReferences(db: Kysely<Database>): FileReferences {
  const referenced = async (digests: readonly string[]) => {
    if (digests.length === 0) return new Set<string>();
    const rows = await db.selectFrom('message_files').select('digest').distinct().where('digest', 'in', digests).execute();
    return new Set(rows.map((row) => row.digest));
  };
  return { referenced, isReferenced: async (digest) => (await referenced([digest])).has(digest) };
}

/** Records the stored files a new message names, in its transaction (`run`). */
export async function recordMessageFiles(run: QueryRunner, messageId: number, attachments: readonly MessageAttachment[] | null) {
  const digests = storedDigestsOf(attachments);
  if (digests.length === 0) return;
  await run.execute(
    run.db
      .insertInto('message_files')
      .values(digests.map((digest) => ({ message_id: messageId, digest })))
      .onConflict((oc) => oc.columns(['message_id', 'digest']).doNothing())
      .compile(),
  );
}

/** The digests an attachments column names (JSON text, or parsed where MariaDB marks it JSON); none when it is not a list. */
export function digestsOfAttachmentsColumn(value: unknown): string[] {
  try {
    const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
    return Array.isArray(parsed) ? storedDigestsOf(parsed.filter((file) => typeof file === 'object' && file !== null)) : [];
  } catch {
    return [];
  }
}
