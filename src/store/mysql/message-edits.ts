/**
 * A sender's corrections of their messages (domain/ports.ts, MessageEditRepository) on a WordPress
 * database: the text in the plugin's messages table (the time of the edit in its `meta`, where the
 * plugin's tables have one: 4.x), the history in Souk's `{prefix}souk_message_edits`.
 */
import { sql } from 'kysely';
import type { MessageEditRepository } from '../../domain/ports.js';
import { metaText } from '../common/rows.js';
import { rows, T, type Db, type MysqlContext } from './context.js';
import { siteText } from './site-text.js';

/** `enter` begins the unit of work's transaction (and takes the writer's lock) before the first statement. */
export function mysqlMessageEdits(db: Db, ctx: MysqlContext, enter: () => Promise<void>): MessageEditRepository {
  const { t } = ctx;
  const run = async (query: ReturnType<typeof sql>) => {
    await enter();
    return db.executeQuery(query.compile(db));
  };
  return {
    async edit(message, text, at, unreadOnly) {
      const { messageDetails } = await ctx.chat();
      const stored = siteText(text);
      // The site's text rules may make it the text it was: nothing to change, nothing to keep.
      if (stored === message.text) return message;
      const unread = unreadOnly ? sql` and is_read = 0` : sql``;
      const changed = await run(
        messageDetails
          ? sql`update ${T(t.messages)} set message = ${stored}, meta = ${metaText({ editedAt: at })} where message_id = ${message.id}${unread}`
          : sql`update ${T(t.messages)} set message = ${stored} where message_id = ${message.id}${unread}`,
      );
      if (Number(changed.numAffectedRows ?? 0) === 0) return undefined;
      await run(sql`insert into ${T(t.soukMessageEdits)} (message_id, con_id, source_id, previous_text, text, edited_at)
        values (${message.id}, ${message.conId}, ${message.sourceId}, ${message.text}, ${stored}, ${at})`);
      return { ...message, text: stored, ...(messageDetails && { editedAt: at }) };
    },
    async ofUser(userId) {
      const found = await rows(
        db,
        sql<{
          message_id: number | string;
          con_id: number | string;
          source_id: number | string;
          previous_text: string;
          text: string;
          edited_at: number | string;
        }>`select message_id, con_id, source_id, previous_text, text, edited_at from ${T(t.soukMessageEdits)}
          where source_id = ${userId} order by id`,
      );
      return found.map((r) => ({
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
