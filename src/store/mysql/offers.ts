/**
 * Offers (domain/chat/offer.ts) in the plugin's messages table. Its `type` is an enum of text,
 * attachment and system, so an offer is a `text` (the plugin's web chat shows its text) whose
 * `meta`, a JSON column the plugin leaves null, holds `{"offer": {...}}` (store/common/rows.ts).
 * The status is read with JSON_EXTRACT, which MariaDB and MySQL 8 (whose JSON type rewrites the
 * text) both answer alike.
 */
import { sql } from 'kysely';
import type { Message } from '../../domain/model.js';
import type { OfferRepository } from '../../domain/ports.js';
import { metaText } from '../common/rows.js';
import { rows, T, type Db, type MysqlContext } from './context.js';
import type { SiteClock } from './site.js';

/** How repositories.ts selects and reads a message (given, so that this file does not import it back). */
export interface MessageReading<R> {
  columns: (form: { messageDetails: boolean; conversationUpdatedAt: boolean }) => ReturnType<typeof sql>;
  toMessage: (row: R, clock: SiteClock) => Message;
}

const status = sql`json_unquote(json_extract(m.meta, '$.offer.status'))`;

/** `enter` begins the unit of work's transaction (and takes the writer's lock) before the first statement. */
export function mysqlOffers<R>(db: Db, ctx: MysqlContext, enter: () => Promise<void>, read: MessageReading<R>): OfferRepository {
  const { t } = ctx;
  const clock = async () => (await ctx.site()).clock;
  return {
    supported: async () => (await ctx.chat()).messageDetails,
    async lockConversation(conId) {
      await enter();
      await rows(db, sql`select con_id from ${T(t.conversations)} where con_id = ${conId} for update`);
    },
    async lockConversationOf(messageId) {
      await enter();
      await rows(
        db,
        sql`select con_id from ${T(t.conversations)}
          where con_id = (select m.con_id from ${T(t.messages)} m where m.message_id = ${messageId}) for update`,
      );
    },
    async pendingOf(conId) {
      await enter();
      const found = await rows(
        db,
        sql<R>`select ${read.columns(await ctx.chat())} from ${T(t.messages)} m
          where m.con_id = ${conId} and m.type <> 'system' and ${status} = 'pending' order by m.message_id`,
      );
      const c = await clock();
      return found.map((row) => read.toMessage(row, c)).filter((m) => m.offer?.status === 'pending');
    },
    async madeSince(conId, sourceId, since) {
      await enter();
      const [row] = await rows(
        db,
        sql<{ n: number | string }>`select count(*) as n from ${T(t.messages)} m where m.con_id = ${conId}
          and m.source_id = ${sourceId} and m.type <> 'system' and m.created_at >= ${(await clock()).local(since)}
          and json_extract(m.meta, '$.offer') is not null`,
      );
      return Number(row?.n ?? 0);
    },
    async settle(offer: Message, next) {
      if (!offer.offer) return false;
      await enter();
      const to = metaText({ offer: { ...offer.offer, status: next } });
      const result = await db.executeQuery(
        sql`update ${T(t.messages)} m set m.meta = ${to} where m.message_id = ${offer.id} and m.type <> 'system'
          and ${status} = ${offer.offer.status}`.compile(db),
      );
      return Number(result.numAffectedRows ?? 0) > 0;
    },
  };
}
