/** A sender's corrections of their messages (domain/ports.ts, MessageEditRepository) on SQLite and PostgreSQL: the message_edits table (migration 029). */
import type { MessageEditRepository } from '../../domain/ports.js';
import type { QueryRunner } from './prepared.js';
import { metaText } from './rows.js';

export function messageEditRepository(run: QueryRunner): MessageEditRepository {
  const { db } = run;
  return {
    async edit(message, text, at, unreadOnly) {
      let update = db
        .updateTable('messages')
        .set({ message: text, meta: metaText({ editedAt: at }) })
        .where('id', '=', message.id);
      if (unreadOnly) update = update.where('is_read', '=', 0);
      const changed = await run.execute(update.compile());
      if (Number(changed.numAffectedRows ?? 0) === 0) return undefined;
      await run.execute(
        db
          .insertInto('message_edits')
          .values({
            message_id: message.id,
            con_id: message.conId,
            source_id: message.sourceId,
            previous_text: message.text,
            text,
            edited_at: at,
          })
          .compile(),
      );
      return { ...message, text, editedAt: at };
    },
    async ofUser(userId) {
      const rows = (
        await run.execute(
          db
            .selectFrom('message_edits')
            .select(['message_id', 'con_id', 'source_id', 'previous_text', 'text', 'edited_at'])
            .where('source_id', '=', userId)
            .orderBy('id')
            .compile(),
        )
      ).rows;
      return rows.map((r) => ({
        messageId: Number(r.message_id),
        conId: Number(r.con_id),
        sourceId: Number(r.source_id),
        previousText: r.previous_text,
        text: r.text,
        editedAt: Number(r.edited_at),
      }));
    },
  };
}
