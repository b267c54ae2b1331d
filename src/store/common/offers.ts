/**
 * Offers (domain/chat/offer.ts) on SQLite and PostgreSQL: messages of type `offer` whose `meta`
 * holds the offer (rows.ts, metaText). Answering one is a conditional update of that meta.
 */
import type { Message } from '../../domain/model.js';
import type { OfferRepository } from '../../domain/ports.js';
import { prepare, type QueryRunner } from './prepared.js';
import { metaText, toMessage } from './rows.js';
import { MESSAGE_COLUMNS } from './schema.js';

/** The meta of a pending offer, as metaText writes it: narrows a conversation's offers to those a status check then confirms. */
export const PENDING_META = '%"status":"pending"%';

const q = {
  // NO KEY: the conversation's messages, which reference it, are not held up.
  lockConversation: prepare((db, conId: number) => db.selectFrom('conversations').select('id').where('id', '=', conId).forNoKeyUpdate()),
  pendingOf: prepare((db, conId: number, pending: string) =>
    db
      .selectFrom('messages')
      .select(MESSAGE_COLUMNS)
      .where('con_id', '=', conId)
      .where('type', '=', 'offer')
      .where('meta', 'like', pending)
      .orderBy('id'),
  ),
  madeSince: prepare((db, conId: number, sourceId: number, since: number) =>
    db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('con_id', '=', conId)
      .where('source_id', '=', sourceId)
      .where('type', '=', 'offer')
      .where('created_at', '>=', since),
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
    async pendingOf(conId) {
      const rows = (await q.pendingOf(run, conId, PENDING_META)).rows.map(toMessage);
      return rows.filter((m) => m.offer?.status === 'pending');
    },
    async madeSince(conId, sourceId, since) {
      return Number((await q.madeSince(run, conId, sourceId, since)).rows[0]?.n ?? 0);
    },
    async settle(offer: Message, status) {
      if (!offer.offer) return false;
      const from = metaText(offer)!;
      const to = metaText({ offer: { ...offer.offer, status } })!;
      return Number((await q.settle(run, offer.id, from, to)).numAffectedRows ?? 0) > 0;
    },
  };
}
