/**
 * Offers (domain/chat/offer.ts) on SQLite and PostgreSQL: messages of type `offer` whose `meta`
 * holds the offer (rows.ts, metaText). Answering one is a conditional update of that meta.
 */
import { sql } from 'kysely';
import type { ListingStatus, Message } from '../../domain/model.js';
import type { OfferRepository } from '../../domain/ports.js';
import { prepare, type QueryRunner } from './prepared.js';
import { metaText, toMessage } from './rows.js';
import { MESSAGE_COLUMNS } from './schema.js';

/** The meta of a pending offer, as metaText writes it: narrows a conversation's offers to those a status check then confirms. */
export const PENDING_META = '%"status":"pending"%';

/** Written into the statements: the partial index messages_offers (migration 034) serves a literal `type = 'offer'`, not a parameter. */
const OFFER = sql.lit('offer');

const q = {
  // NO KEY: the conversation's messages, which reference it, are not held up.
  lockConversation: prepare((db, conId: number) => db.selectFrom('conversations').select('id').where('id', '=', conId).forNoKeyUpdate()),
  lockConversationOf: prepare((db, messageId: number) =>
    db
      .selectFrom('conversations')
      .select('id')
      .where('id', '=', (eb) => eb.selectFrom('messages').select('con_id').where('messages.id', '=', messageId))
      .forNoKeyUpdate(),
  ),
  // The pattern is written into the statement: SQLite prepares a statement again each time a LIKE
  // pattern is bound as a parameter (its LIKE optimisation), ten times this read's own cost.
  // Unordered, so that the planner takes messages_offers (migration 034) rather than the
  // conversation's index for its order: the caller sorts the few rows.
  pendingOf: prepare((db, conId: number) =>
    db
      .selectFrom('messages')
      .select(MESSAGE_COLUMNS)
      .where('con_id', '=', conId)
      .where('type', '=', OFFER)
      .where('meta', 'like', sql.lit(PENDING_META)),
  ),
  madeSince: prepare((db, conId: number, sourceId: number, since: number) =>
    db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('con_id', '=', conId)
      .where('source_id', '=', sourceId)
      .where('type', '=', OFFER)
      .where('created_at', '>=', since),
  ),
  // The listing's terms, with the count of madeSince alongside: one statement for an offer's checks.
  terms: prepare((db, listingId: number, conId: number, sourceId: number, since: number) =>
    db
      .selectFrom('listings')
      .select(['title', 'price', 'status'])
      .select((eb) =>
        eb
          .selectFrom('messages')
          .select((m) => m.fn.countAll<number | string>().as('n'))
          .where('con_id', '=', conId)
          .where('source_id', '=', sourceId)
          .where('type', '=', OFFER)
          .where('created_at', '>=', since)
          .as('made'),
      )
      .where('id', '=', listingId),
  ),
  settle: prepare((db, id: number, from: string, to: string) =>
    db.updateTable('messages').set({ meta: to }).where('id', '=', id).where('meta', '=', from),
  ),
};

/** `rowLocks`: whether the database locks rows (PostgreSQL); without, its one write lock serves (SQLite). */
export function offerRepository(run: QueryRunner, rowLocks: boolean): OfferRepository {
  return {
    supported: () => Promise.resolve(true),
    async lockConversation(conId) {
      if (rowLocks) await q.lockConversation(run, conId);
    },
    async lockConversationOf(messageId) {
      if (rowLocks) await q.lockConversationOf(run, messageId);
    },
    async pendingOf(conId) {
      const rows = (await q.pendingOf(run, conId)).rows.map(toMessage);
      return rows.filter((m) => m.offer?.status === 'pending').sort((a, b) => a.id - b.id);
    },
    async madeSince(conId, sourceId, since) {
      return Number((await q.madeSince(run, conId, sourceId, since)).rows[0]?.n ?? 0);
    },
    async terms(conversation, sourceId, since) {
      const row = (await q.terms(run, conversation.listingId, conversation.id, sourceId, since)).rows[0];
      if (row) return { listing: { title: row.title, price: row.price, status: row.status as ListingStatus }, made: Number(row.made ?? 0) };
      // No listing: an offer is refused before its count matters.
      return { listing: undefined, made: 0 };
    },
    async settle(offer: Message, status) {
      if (!offer.offer) return false;
      const from = metaText(offer)!;
      const to = metaText({ offer: { ...offer.offer, status } })!;
      return Number((await q.settle(run, offer.id, from, to)).numAffectedRows ?? 0) > 0;
    },
  };
}
