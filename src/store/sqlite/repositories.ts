/**
 * The use cases' repositories on SQLite. SQLite runs in this process, so a statement costs no
 * round trip: a toggle or an append is a few small statements, each the cheapest SQLite has.
 */
import { sql } from 'kysely';
import { canBeFavourited, type ListingStatus } from '../../domain/model.js';
import type { Repositories } from '../../domain/ports.js';
import { eventRecorder, logEventInTwoStatements } from '../common/events.js';
import type { ListingCache } from '../common/listing-cache.js';
import { prepare, rawQuery, type QueryRunner } from '../common/prepared.js';
import {
  chatReadQueries,
  conversationInsert,
  favouriteIds,
  insertedId,
  messageArguments,
  messageInsert,
  repositories,
  type DatabaseStatements,
} from '../common/repositories.js';
import type { PusherQueueing } from '../../domain/pusher.js';
import type { MailQueueing } from '../common/store.js';

const q = {
  // By its rowid SQLite reads a listing's whole row, a 4 KB page of image JSON that is rarely in its
  // cache; the listings_state index (migration 004) holds just these columns, is some 30 times
  // smaller and stays cached. The planner never prefers an index to the rowid by itself.
  listingVersion: prepare((db, id: number) =>
    rawQuery(db, sql<{ version: number }>`select version from listings indexed by listings_state where id = ${id}`),
  ),
  listingStatus: prepare((db, id: number) =>
    rawQuery(db, sql<{ status: string }>`select status from listings indexed by listings_state where id = ${id}`),
  ),
  removeFavourite: prepare((db, userId: number, listingId: number) =>
    db.deleteFrom('favourites').where('user_id', '=', userId).where('listing_id', '=', listingId),
  ),
  addFavourite: prepare((db, userId: number, listingId: number, at: number) =>
    db
      .insertInto('favourites')
      .values({ user_id: userId, listing_id: listingId, added_at: at })
      .onConflict((oc) => oc.columns(['user_id', 'listing_id']).doNothing()),
  ),
  // RETURNING doubles the cost of an insert on SQLite: the new row's id is the last rowid.
  createConversation: prepare((db, listingId: number, senderId: number, recipientId: number, at: number) =>
    conversationInsert(db, listingId, senderId, recipientId, at),
  ),
  createMessage: prepare(
    (
      db,
      conId: number,
      sourceId: number,
      text: string,
      type: string,
      attachments: string | null,
      tempId: string | null,
      at: number,
      meta: string | null,
    ) => messageInsert(db, { con_id: conId, source_id: sourceId, message: text, type, attachments, temp_id: tempId, created_at: at, meta }),
  ),
  recordLastMessage: prepare((db, conId: number, messageId: number, at: number) =>
    db.updateTable('conversations').set({ last_message_id: messageId, updated_at: at }).where('id', '=', conId),
  ),
};

const SQLITE_STATEMENTS: DatabaseStatements = {
  listingState: { version: q.listingVersion },
  // Through listings_state too, for the reason above: a join would read the listing's rowid row.
  chatReads: chatReadQueries(
    (listingId) => sql<number | null>`(select lv.version from listings as lv indexed by listings_state where lv.id = ${listingId})`,
  ),
  async toggleFavourite(run, userId, listingId, at) {
    const status = (await q.listingStatus(run, listingId)).rows[0]?.status as ListingStatus | undefined;
    if (!canBeFavourited(status)) return undefined;
    const removed = Number((await q.removeFavourite(run, userId, listingId)).numAffectedRows ?? 0) > 0;
    if (!removed) await q.addFavourite(run, userId, listingId, at);
    return favouriteIds(run, userId);
  },
  insertConversation: async (run, listingId, senderId, recipientId, at) =>
    insertedId(await q.createConversation(run, listingId, senderId, recipientId, at)),
  async appendMessage(run, m) {
    const id = insertedId(await q.createMessage(run, ...messageArguments(m)));
    await q.recordLastMessage(run, m.conId, id, m.createdAt);
    return id;
  },
};

/** `recorded`: told of each user an event was recorded for, before the commit (common/events.ts). */
export const sqliteRepositories = (
  run: QueryRunner,
  cache: ListingCache,
  webhookUrls: readonly string[] = [],
  recorded?: (userId: number) => void,
  push = false,
  mail?: MailQueueing,
  pusher?: PusherQueueing,
): Repositories =>
  repositories(
    run,
    cache,
    SQLITE_STATEMENTS,
    eventRecorder(run, { logEvent: logEventInTwoStatements }, webhookUrls, recorded, push, mail, pusher),
  );
