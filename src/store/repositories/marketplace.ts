/**
 * Kysely repositories for the use cases' ports. Only SQL both SQLite and PostgreSQL accept,
 * except the few statements marked as PostgreSQL's, each a round trip fewer there.
 * The queries on the request path are prepared once (see ../prepared.ts).
 */
import { sql, type InsertResult, type QueryCreator, type QueryResult, type Selectable } from 'kysely';
import type { NewMessage } from '../../domain/model.js';
import type {
  ConversationRepository,
  FavouriteRepository,
  ListingRepository,
  MessageRepository,
  Repositories,
  UserRepository,
} from '../../domain/ports.js';
import type { ListingCache } from '../listing-cache.js';
import { CONVERSATION_COLUMNS, LISTING_COLUMNS, MESSAGE_COLUMNS, USER_COLUMNS, type Database, type MessagesTable } from '../schema.js';
import { prepare, rawQuery, type QueryRunner } from '../prepared.js';
import { toConversation, toListing, toMessage, toUser } from './rows.js';

type Db = QueryRunner['db'];

/** A new conversation's row: the columns the insert leaves to the database hold these values. */
function newConversationRow(listingId: number, senderId: number, recipientId: number, at: number) {
  return {
    listing_id: listingId,
    sender_id: senderId,
    recipient_id: recipientId,
    sender_delete: 0,
    recipient_delete: 0,
    sender_review: 0,
    recipient_review: 0,
    invert_review: 0,
    last_message_id: null,
    created_at: at,
    updated_at: at,
  };
}

function conversationInsert(db: Db, listingId: number, senderId: number, recipientId: number, at: number) {
  return db.insertInto('conversations').values(newConversationRow(listingId, senderId, recipientId, at));
}

type NewMessageRow = Omit<Selectable<MessagesTable>, 'id' | 'meta' | 'is_read'>;

function messageInsert(db: QueryCreator<Database>, row: NewMessageRow) {
  return db.insertInto('messages').values({ ...row, meta: null, is_read: 0 });
}

/** The id of the row an insert made: RETURNING's on PostgreSQL, the last rowid on SQLite. */
function insertedId(result: QueryResult<InsertResult | { id: number | null }>): number {
  const row = result.rows[0];
  const id = row && 'id' in row ? row.id : result.insertId;
  if (id === undefined || id === null) throw new Error('the insert reported no id');
  return Number(id);
}

const q = {
  userById: prepare((db, id: number) => db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id)),
  listingById: prepare((db, id: number) => db.selectFrom('listings').select(LISTING_COLUMNS).where('id', '=', id)),
  listingVersion: prepare((db, id: number) => db.selectFrom('listings').select('version').where('id', '=', id)),
  listingStatus: prepare((db, id: number) => db.selectFrom('listings').select('status').where('id', '=', id)),
  // By its rowid SQLite reads a listing's whole row, a 4 KB page of image JSON that is rarely in its
  // cache; the listings_state index (migration 004, SQLite only) holds just these columns, is some
  // 30 times smaller and stays cached. The planner never prefers an index to the rowid by itself.
  sqliteListingVersion: prepare((db, id: number) =>
    rawQuery(db, sql<{ version: number }>`select version from listings indexed by listings_state where id = ${id}`),
  ),
  sqliteListingStatus: prepare((db, id: number) =>
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
  favouriteIds: prepare((db, userId: number) =>
    db.selectFrom('favourites').select('listing_id').where('user_id', '=', userId).orderBy('id'),
  ),
  // PostgreSQL: the whole toggle in one statement, two round trips less per add and one per remove.
  // Every part of a statement reads the rows as they were before it: the list is the rows read
  // less the one removed, plus the one added (the newest, so last in id order).
  toggleFavourite: prepare((db, userId: number, listingId: number, at: number) =>
    db
      .with('removed', (qc) =>
        qc.deleteFrom('favourites').where('user_id', '=', userId).where('listing_id', '=', listingId).returning('id'),
      )
      .with('added', (qc) =>
        qc
          .insertInto('favourites')
          .columns(['user_id', 'listing_id', 'added_at'])
          .expression(
            qc
              .selectNoFrom([
                sql<number>`cast(${userId} as bigint)`.as('user_id'),
                sql<number>`cast(${listingId} as bigint)`.as('listing_id'),
                sql<number>`cast(${at} as bigint)`.as('added_at'),
              ])
              .where((w) => w.not(w.exists(w.selectFrom('removed').select('removed.id')))),
          )
          .onConflict((oc) => oc.columns(['user_id', 'listing_id']).doNothing())
          .returning(['id', 'listing_id']),
      )
      .selectFrom((eb) =>
        eb
          .selectFrom('favourites')
          .select(['favourites.id', 'favourites.listing_id'])
          .where('favourites.user_id', '=', userId)
          .where('favourites.id', 'not in', eb.selectFrom('removed').select('removed.id'))
          .unionAll(eb.selectFrom('added').select(['added.id', 'added.listing_id']))
          .as('after'),
      )
      .select('after.listing_id')
      .orderBy('after.id'),
  ),
  openConversation: prepare((db, listingId: number, senderId: number, recipientId: number) =>
    db
      .selectFrom('conversations')
      .select(CONVERSATION_COLUMNS)
      .where('listing_id', '=', listingId)
      .where('sender_id', '=', senderId)
      .where('recipient_id', '=', recipientId)
      // Literals, not parameters: only then can the database see that the partial unique index applies.
      .where('sender_delete', '=', sql.lit(0))
      .where('recipient_delete', '=', sql.lit(0)),
  ),
  // RETURNING doubles the cost of an insert on SQLite: there the new row's id is the last rowid.
  createConversation: prepare((db, listingId: number, senderId: number, recipientId: number, at: number) =>
    conversationInsert(db, listingId, senderId, recipientId, at),
  ),
  createConversationReturningId: prepare((db, listingId: number, senderId: number, recipientId: number, at: number) =>
    conversationInsert(db, listingId, senderId, recipientId, at).returning('id'),
  ),
  recordLastMessage: prepare((db, conId: number, messageId: number, at: number) =>
    db.updateTable('conversations').set({ last_message_id: messageId, updated_at: at }).where('id', '=', conId),
  ),
  conversationById: prepare((db, id: number) => db.selectFrom('conversations').select(CONVERSATION_COLUMNS).where('id', '=', id)),
  unreadFrom: prepare((db, conId: number, senderId: number) =>
    db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('con_id', '=', conId)
      .where('source_id', '=', senderId)
      .where('is_read', '=', 0),
  ),
  // The messages_by_sender index (migration 006) has is_read before temp_id: one exact seek for
  // unread, one for read. SQLite's is_read in (0, 1) would build a temporary table on every run
  // (measured: 13-14 us per lookup instead of 9-10).
  messageByTempId: prepare((db, conId: number, sourceId: number, tempId: string) => {
    const withIsRead = (isRead: number) =>
      db
        .selectFrom('messages')
        .select(MESSAGE_COLUMNS)
        .where('con_id', '=', conId)
        .where('source_id', '=', sourceId)
        .where('is_read', '=', isRead)
        .where('temp_id', '=', tempId);
    return withIsRead(0).unionAll(withIsRead(1));
  }),
  messageById: prepare((db, id: number) => db.selectFrom('messages').select(MESSAGE_COLUMNS).where('id', '=', id)),
  createMessage: prepare(
    (db, conId: number, sourceId: number, text: string, type: string, attachments: string | null, tempId: string | null, at: number) =>
      messageInsert(db, { con_id: conId, source_id: sourceId, message: text, type, attachments, temp_id: tempId, created_at: at }),
  ),
  // PostgreSQL: the message and its conversation's last-message mark in one statement, a round
  // trip less per start. The update reads the new id from the insert's RETURNING.
  appendMessage: prepare(
    (db, conId: number, sourceId: number, text: string, type: string, attachments: string | null, tempId: string | null, at: number) =>
      db
        .with('appended', (cte) =>
          messageInsert(cte, { con_id: conId, source_id: sourceId, message: text, type, attachments, temp_id: tempId, created_at: at }).returning('id'),
        )
        .updateTable('conversations')
        .set((eb) => ({ last_message_id: eb.selectFrom('appended').select('appended.id'), updated_at: at }))
        .where('id', '=', conId)
        .returning((eb) => eb.selectFrom('appended').select('appended.id').as('id')),
  ),
};

function users(run: QueryRunner): UserRepository {
  return {
    async findById(id) {
      const row = (await q.userById(run, id)).rows[0];
      return row && toUser(row);
    },
  };
}

function listings(run: QueryRunner, cache: ListingCache): ListingRepository {
  const sqlite = run.dialect === 'sqlite';
  const versionQuery = sqlite ? q.sqliteListingVersion : q.listingVersion;
  const statusQuery = sqlite ? q.sqliteListingStatus : q.listingStatus;
  return {
    async findById(id) {
      if (cache.has(id)) {
        const version = (await versionQuery(run, id)).rows[0]?.version;
        if (version === undefined) return undefined;
        const cached = cache.get(id, version);
        if (cached) return cached;
      }
      const row = (await q.listingById(run, id)).rows[0];
      if (!row) return undefined;
      const listing = toListing(row);
      cache.offer(id, row.version, listing);
      return listing;
    },
    async statusOf(id) {
      return (await statusQuery(run, id)).rows[0]?.status as Awaited<ReturnType<ListingRepository['statusOf']>>;
    },
  };
}

function favourites(run: QueryRunner): FavouriteRepository {
  async function listIds(userId: number) {
    return (await q.favouriteIds(run, userId)).rows.map((r) => r.listing_id);
  }
  return {
    async toggle(userId, listingId, at) {
      if (run.dialect !== 'sqlite') return (await q.toggleFavourite(run, userId, listingId, at)).rows.map((r) => r.listing_id);
      // Three statements, but no round trips: SQLite runs in this process.
      const removed = Number((await q.removeFavourite(run, userId, listingId)).numAffectedRows ?? 0) > 0;
      if (!removed) await q.addFavourite(run, userId, listingId, at);
      return listIds(userId);
    },
    listIds,
  };
}

function conversations(run: QueryRunner): ConversationRepository {
  return {
    async findOpen(listingId, senderId, recipientId) {
      const row = (await q.openConversation(run, listingId, senderId, recipientId)).rows[0];
      return row && toConversation(row);
    },
    async create(listingId, senderId, recipientId, at) {
      const insert = run.dialect === 'sqlite' ? q.createConversation : q.createConversationReturningId;
      const id = insertedId(await insert(run, listingId, senderId, recipientId, at));
      return toConversation({ id, ...newConversationRow(listingId, senderId, recipientId, at) });
    },
    async findById(conId) {
      const row = (await q.conversationById(run, conId)).rows[0];
      return row && toConversation(row);
    },
    async unreadFrom(conId, senderId) {
      return Number((await q.unreadFrom(run, conId, senderId)).rows[0]?.n ?? 0);
    },
  };
}

function messages(run: QueryRunner): MessageRepository {
  return {
    async findByTempId(conId, sourceId, tempId) {
      const row = (await q.messageByTempId(run, conId, sourceId, tempId)).rows[0];
      return row && toMessage(row);
    },
    async findById(id) {
      const row = (await q.messageById(run, id)).rows[0];
      return row && toMessage(row);
    },
    async append(m: NewMessage) {
      const attachments = m.attachments === null ? null : JSON.stringify(m.attachments);
      const args = [m.conId, m.sourceId, m.text, m.type, attachments, m.tempId, m.createdAt] as const;
      let id: number;
      if (run.dialect === 'sqlite') {
        // Two statements, but no round trips: SQLite runs in this process.
        id = insertedId(await q.createMessage(run, ...args));
        await q.recordLastMessage(run, m.conId, id, m.createdAt);
      } else {
        id = insertedId(await q.appendMessage(run, ...args));
      }
      const row = { con_id: m.conId, source_id: m.sourceId, message: m.text, type: m.type, attachments, temp_id: m.tempId, created_at: m.createdAt };
      return toMessage({ id, ...row, meta: null, is_read: 0 });
    },
  };
}

export function marketplaceRepositories(run: QueryRunner, cache: ListingCache): Repositories {
  return {
    users: users(run),
    listings: listings(run, cache),
    favourites: favourites(run),
    conversations: conversations(run),
    messages: messages(run),
  };
}
