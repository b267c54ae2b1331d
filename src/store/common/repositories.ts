/**
 * The use cases' repositories, built from queries whose SQL every database accepts and from the
 * few statements each database writes its own way (DatabaseStatements, given by sqlite/ and
 * postgres/). The queries on the request path are prepared once (prepared.ts).
 */
import {
  sql,
  type Expression,
  type ExpressionBuilder,
  type InsertResult,
  type QueryCreator,
  type QueryResult,
  type RawBuilder,
  type Selectable,
} from 'kysely';
import type { FirstMessage, Listing, Message, NewMessage, Side } from '../../domain/model.js';
import type { EventRecorder, ListingRepository, OpenedConversation, Repositories } from '../../domain/ports.js';
import type { ListingCache } from './listing-cache.js';
import { moderationRepository } from './moderation.js';
import { messageEditRepository } from './message-edits.js';
import { offerRepository } from './offers.js';
import { CONVERSATION_COLUMNS, LISTING_COLUMNS, MESSAGE_COLUMNS, USER_COLUMNS, type Database, type MessagesTable } from './schema.js';
import { prepare, type PreparedQuery, type QueryRunner } from './prepared.js';
import { reportRepository } from './reports.js';
import { recordMessageFiles } from './file-references.js';
import { blockRepository, otherNotBlockedBy, type BlockStoreOptions } from './blocks.js';
import {
  MESSAGE_FIELDS,
  metaText,
  toConversation,
  toConversationListRow,
  toListing,
  toMessage,
  toMessageFromValues,
  toUser,
} from './rows.js';

type Db = QueryRunner['db'];
type Prepared<A extends unknown[], O> = (runner: QueryRunner, ...args: A) => Promise<QueryResult<O>>;

/** A new conversation's row: the columns the insert leaves to the database hold these values. */
export function newConversationRow(listingId: number, senderId: number, recipientId: number, at: number) {
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

export function conversationInsert(db: Db, listingId: number, senderId: number, recipientId: number, at: number) {
  return db.insertInto('conversations').values(newConversationRow(listingId, senderId, recipientId, at));
}

type NewMessageRow = Omit<Selectable<MessagesTable>, 'id' | 'is_read'>;

export function messageInsert(db: QueryCreator<Database>, row: NewMessageRow) {
  return db.insertInto('messages').values({ ...row, is_read: 0 });
}

/** A message's insert arguments, in the order the prepared inserts take them. */
export function messageArguments(m: NewMessage) {
  const attachments = m.attachments === null ? null : JSON.stringify(m.attachments);
  return [m.conId, m.sourceId, m.text, m.type, attachments, m.tempId, m.createdAt, metaText(m)] as const;
}

/** The message just stored under `id`, as reading it back would give it. */
export function storedMessage(id: number, m: NewMessage): Message {
  const [con_id, source_id, message, type, attachments, temp_id, created_at, meta] = messageArguments(m);
  return toMessage({ id, con_id, source_id, message, type, attachments, temp_id, created_at, meta, is_read: 0 });
}

/** The id of the row an insert made: RETURNING's, or the last rowid. */
export function insertedId(result: QueryResult<InsertResult | { id: number | null }>): number {
  const row = result.rows[0];
  const id = row && 'id' in row ? row.id : result.insertId;
  if (id === undefined || id === null) throw new Error('the insert reported no id');
  return Number(id);
}

/** The conversations `userId` takes part in and has not left, but those with a user they blocked. */
function conversationsOf(db: Db, userId: number, listedOnly: boolean) {
  const query = db
    .selectFrom('conversations as c')
    .where((eb) =>
      eb.or([
        eb.and([eb('c.sender_id', '=', userId), eb('c.sender_delete', '=', sql.lit(0))]),
        eb.and([eb('c.recipient_id', '=', userId), eb('c.recipient_delete', '=', sql.lit(0))]),
      ]),
    )
    .where(otherNotBlockedBy(userId));
  return listedOnly
    ? query.where((eb) => eb.exists(eb.selectFrom('listings as l').select('l.id').whereRef('l.id', '=', 'c.listing_id')))
    : query;
}

/** Messages in conversation c from its participant other than `userId`, still unread. */
function unreadForReader(eb: ExpressionBuilder<Database & { c: Database['conversations'] }, 'c'>, userId: number) {
  return eb
    .selectFrom('messages as u')
    .select((e) => e.fn.countAll<number | string>().as('n'))
    .whereRef('u.con_id', '=', 'c.id')
    .where('u.source_id', '=', eb.case().when('c.sender_id', '=', userId).then(eb.ref('c.recipient_id')).else(eb.ref('c.sender_id')).end())
    .where('u.is_read', '=', sql.lit(0));
}

/** The version of the listing whose id is `listingId`, null when there is none: a scalar subquery in the database's cheapest form. */
export type ListingVersionOf = (listingId: Expression<number>) => RawBuilder<number | null>;

/**
 * The page is sorted and cut on the conversations' keys first, then only its rows get their last
 * message, unread count and listing version: computed before the sort, they cost one of each per
 * conversation of the reader's, which a seller with a thousand of them pays on every poll.
 */
function conversationPage(db: Db, versionOf: ListingVersionOf, userId: number, limit: number, offset: number, listedOnly: boolean) {
  const page = conversationsOf(db, userId, listedOnly)
    .select('c.id as page_id')
    .orderBy('c.last_message_id', 'desc')
    .orderBy('c.id', 'desc')
    .limit(limit)
    .offset(offset)
    .as('page');
  return db
    .selectFrom(page)
    .innerJoin('conversations as c', 'c.id', 'page.page_id')
    .leftJoin('messages as m', 'm.id', 'c.last_message_id')
    .select(CONVERSATION_COLUMNS.map((column) => `c.${column}` as const))
    .select(['m.message as last_text', 'm.is_read as last_is_read', 'm.source_id as last_source_id', 'm.created_at as last_created_at'])
    .select((eb) => unreadForReader(eb, userId).as('unread'))
    .select((eb) => versionOf(eb.ref('c.listing_id')).as('listing_version'))
    .orderBy('c.last_message_id', 'desc')
    .orderBy('c.id', 'desc');
}

/**
 * The chat's reads that bring each conversation's listing version along, so that a cached listing
 * costs no statement of its own; built once per database, with its ListingVersionOf.
 */
export function chatReadQueries(versionOf: ListingVersionOf) {
  return {
    conversationPage: prepare((db, userId: number, limit: number, offset: number) =>
      conversationPage(db, versionOf, userId, limit, offset, false),
    ),
    listedConversationPage: prepare((db, userId: number, limit: number, offset: number) =>
      conversationPage(db, versionOf, userId, limit, offset, true),
    ),
    conversationForReader: prepare((db, conId: number, readerId: number) =>
      db
        .selectFrom('conversations as c')
        .select(CONVERSATION_COLUMNS.map((column) => `c.${column}` as const))
        .select((eb) => unreadForReader(eb, readerId).as('unread'))
        .select((eb) => versionOf(eb.ref('c.listing_id')).as('listing_version'))
        .where('c.id', '=', conId),
    ),
  };
}

export type ChatReadQueries = ReturnType<typeof chatReadQueries>;

function conversationCount(db: Db, userId: number, listedOnly: boolean) {
  return conversationsOf(db, userId, listedOnly).select((eb) => eb.fn.countAll<number | string>().as('n'));
}

/** A conversation by its id. */
const conversationById = (db: QueryRunner['db'], id: number) =>
  db.selectFrom('conversations').select(CONVERSATION_COLUMNS).where('id', '=', id);

/** The open conversation (neither side left) of the listing between the two. */
export const openConversation = (db: QueryRunner['db'], listingId: number, senderId: number, recipientId: number) =>
  db
    .selectFrom('conversations')
    .select(CONVERSATION_COLUMNS)
    .where('listing_id', '=', listingId)
    .where('sender_id', '=', senderId)
    .where('recipient_id', '=', recipientId)
    // Literals, not parameters: only then can the database see that the partial unique index applies.
    .where('sender_delete', '=', sql.lit(0))
    .where('recipient_delete', '=', sql.lit(0));

/** A conversation's id: a number, or a statement's expression for it. */
type ConversationId = number | Expression<number>;

/** How many of the conversation's messages from `senderId` are unread. */
export const unreadFrom = (db: Db, conId: ConversationId, senderId: number) =>
  db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('con_id', '=', conId)
    .where('source_id', '=', senderId)
    .where('is_read', '=', 0);

/**
 * The message `sourceId` stored in the conversation with `tempId` (null: none). The
 * messages_by_sender index (migration 006) has is_read before temp_id: one exact seek for unread,
 * one for read. SQLite's is_read in (0, 1) would build a temporary table on every run.
 */
export const messageByTempId = (db: Db, conId: ConversationId, sourceId: number, tempId: string | null) => {
  const withIsRead = (isRead: number) =>
    db
      .selectFrom('messages')
      .select(MESSAGE_COLUMNS)
      .where('con_id', '=', conId)
      .where('source_id', '=', sourceId)
      .where('is_read', '=', isRead)
      .where('temp_id', '=', tempId);
  return withIsRead(0).unionAll(withIsRead(1));
};

/** Listings with their price type (listing_details), as toListing takes them; a where clause to add. */
export const listingsWithPriceType = (db: Db) =>
  db
    .selectFrom('listings')
    .leftJoin('listing_details', 'listing_details.listing_id', 'listings.id')
    .select(LISTING_COLUMNS.map((column) => `listings.${column}` as const))
    .select('listing_details.price_type');

/** A listing's row as listingsWithPriceType selects it. */
export type ListingWithPriceTypeRow = Selectable<Database['listings']> & { price_type: string | null };

const q = {
  conversationCount: prepare((db, userId: number) => conversationCount(db, userId, false)),
  listedConversationCount: prepare((db, userId: number) => conversationCount(db, userId, true)),
  leaveAsSender: prepare((db, conId: number) => db.updateTable('conversations').set({ sender_delete: 1 }).where('id', '=', conId)),
  leaveAsRecipient: prepare((db, conId: number) => db.updateTable('conversations').set({ recipient_delete: 1 }).where('id', '=', conId)),
  messagePage: prepare((db, conId: number, afterId: number, limit: number, offset: number) =>
    db
      .selectFrom('messages')
      .select(MESSAGE_FIELDS)
      .where('con_id', '=', conId)
      .where('id', '>', afterId)
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset),
  ),
  messageCount: prepare((db, conId: number, afterId: number) =>
    db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('con_id', '=', conId)
      .where('id', '>', afterId),
  ),
  // Every message of the conversation: the count its triggers keep (migration 035), one row.
  keptMessageCount: prepare((db, conId: number) => db.selectFrom('conversations').select('message_count as n').where('id', '=', conId)),
  markRead: prepare((db, conId: number, sourceId: number, upToId: number) =>
    db
      .updateTable('messages')
      .set({ is_read: 1 })
      .where('con_id', '=', conId)
      .where('source_id', '=', sourceId)
      .where('is_read', '=', sql.lit(0))
      .where('id', '<=', upToId),
  ),
  userById: prepare((db, id: number) => db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id)),
  listingById: prepare((db, id: number) => listingsWithPriceType(db).where('listings.id', '=', id)),
  favouriteIds: prepare((db, userId: number) =>
    db.selectFrom('favourites').select('listing_id').where('user_id', '=', userId).orderBy('id'),
  ),
  openConversation: prepare((db, listingId: number, senderId: number, recipientId: number) =>
    openConversation(db, listingId, senderId, recipientId),
  ),
  openConversationKept: prepare((db, listingId: number, senderId: number, recipientId: number) =>
    openConversation(db, listingId, senderId, recipientId).forKeyShare(),
  ),
  conversationById: prepare((db, id: number) => conversationById(db, id)),
  // PostgreSQL only (DatabaseStatements.keepsConversations).
  conversationKept: prepare((db, id: number) => conversationById(db, id).forKeyShare()),
  unreadFrom: prepare((db, conId: number, senderId: number) => unreadFrom(db, conId, senderId)),
  messageByTempId: prepare((db, conId: number, sourceId: number, tempId: string) => messageByTempId(db, conId, sourceId, tempId)),
  messageById: prepare((db, id: number) => db.selectFrom('messages').select(MESSAGE_COLUMNS).where('id', '=', id)),
};

/** How a database reads a listing's state cheaply: its version (for the cache). */
export interface ListingStateQueries {
  version: Prepared<[id: number], { version: number }>;
}

/** The statements each database writes its own way, for the speed of its round trips. */
export interface DatabaseStatements {
  listingState: ListingStateQueries;
  chatReads: ChatReadQueries;
  /**
   * Removes the favourite when it is there, else adds it; the user's favourite ids after, oldest
   * first. Undefined, changing nothing, when the listing cannot be favourited (canBeFavourited).
   */
  toggleFavourite(run: QueryRunner, userId: number, listingId: number, at: number): Promise<number[] | undefined>;
  /** Inserts a new conversation (newConversationRow); its id. */
  insertConversation(run: QueryRunner, listingId: number, senderId: number, recipientId: number, at: number): Promise<number>;
  /** Inserts the message and makes it its conversation's last; the message's id. */
  appendMessage(run: QueryRunner, message: NewMessage): Promise<number>;
  /** ConversationRepository.openOrCreate, for a database whose statements are round trips. */
  openOrCreateConversation?(
    run: QueryRunner,
    listingId: number,
    senderId: number,
    recipientId: number,
    at: number,
    first: FirstMessage,
  ): Promise<OpenedConversation>;
  /**
   * Several listings in one statement (their ids as an SQL array's text, `{1,2}`), for a database
   * where each statement is a round trip (PostgreSQL); without, a chat list reads the listings not
   * cached one statement each.
   */
  listingsByIds?: PreparedQuery<[ids: string], ListingWithPriceTypeRow>;
  /** Moderation locks rows (PostgreSQL); without, the database's one write lock serves (SQLite). */
  rowLocks?: boolean;
  /**
   * In a write transaction on PostgreSQL: a conversation read is held against deletion until the
   * transaction ends (FOR KEY SHARE). The retention's delete then waits for the message written
   * next, or has happened and the conversation is not found; it never deletes it in between (the
   * message's insert would fail its foreign key: a 500). SQLite's one write lock serves.
   */
  keepsConversations?: boolean;
  /**
   * Holds the listing's row until the transaction ends, so that its reports are counted one
   * after the other; absent where write transactions already run one at a time (SQLite).
   */
  lockListing?(run: QueryRunner, listingId: number): Promise<void>;
}

/** A listing's row as read from the database, parsed and offered to the cache. */
function offered(cache: ListingCache, row: ListingWithPriceTypeRow): Listing {
  const listing = toListing(row, row.price_type);
  cache.offer(row.id, row.version, listing);
  return listing;
}

/** The listing read from the database, offered to the cache. */
async function readListing(run: QueryRunner, cache: ListingCache, id: number): Promise<Listing | undefined> {
  const row = (await q.listingById(run, id)).rows[0];
  return row && offered(cache, row);
}

/** The listing whose version a query read along (null: there is none), from the cache while it is at that version. */
async function listingAt(run: QueryRunner, cache: ListingCache, id: number, version: number | null): Promise<Listing | undefined> {
  if (version === null) return undefined;
  return cache.get(id, version) ?? readListing(run, cache, id);
}

/**
 * The listings of a page whose versions it read along (null: there is none), each as listingAt
 * finds it; those not cached are read in one statement when the database has one (listingsByIds).
 */
async function listingsAt(
  run: QueryRunner,
  cache: ListingCache,
  wanted: ReadonlyArray<{ id: number; version: number | null }>,
  byIds: DatabaseStatements['listingsByIds'],
): Promise<Array<Listing | undefined>> {
  const cached = wanted.map(({ id, version }) => (version === null ? null : cache.get(id, version)));
  const missing = [...new Set(wanted.filter((_, i) => cached[i] === undefined).map(({ id }) => id))];
  const together =
    byIds && missing.length > 1
      ? new Map((await byIds(run, `{${missing.join(',')}}`)).rows.map((row) => [row.id, offered(cache, row)]))
      : undefined;
  const found = (id: number) => (together ? together.get(id) : readListing(run, cache, id));
  return Promise.all(wanted.map(({ id }, i) => (cached[i] === null ? undefined : (cached[i] ?? found(id)))));
}

/** Listings read through the cache of parsed listings, checked against each listing's version. */
function listingRepository(run: QueryRunner, cache: ListingCache, state: ListingStateQueries): ListingRepository {
  return {
    async findById(id): Promise<Listing | undefined> {
      if (cache.has(id)) {
        const version = (await state.version(run, id)).rows[0]?.version;
        if (version === undefined) return undefined;
        const cached = cache.get(id, version);
        if (cached) return cached;
      }
      return readListing(run, cache, id);
    },
  };
}

export async function favouriteIds(run: QueryRunner, userId: number): Promise<number[]> {
  return (await q.favouriteIds(run, userId)).rows.map((r) => r.listing_id);
}

/** Every port's repository over `run`: a plain connection, or a transaction's. */
export function repositories(
  run: QueryRunner,
  cache: ListingCache,
  own: DatabaseStatements,
  events?: EventRecorder,
  blocks?: BlockStoreOptions,
): Repositories {
  return {
    ...(events ? { events } : {}),
    moderation: moderationRepository(run, own.rowLocks ?? false),
    offers: offerRepository(run, own.rowLocks ?? false),
    edits: messageEditRepository(run),
    blocks: blockRepository(run, blocks),
    users: {
      async findById(id) {
        const row = (await q.userById(run, id)).rows[0];
        return row && toUser(row);
      },
    },
    listings: listingRepository(run, cache, own.listingState),
    favourites: {
      toggle: (userId, listingId, at) => own.toggleFavourite(run, userId, listingId, at),
      listIds: (userId) => favouriteIds(run, userId),
    },
    conversations: {
      async findOpen(listingId, senderId, recipientId) {
        const open = own.keepsConversations ? q.openConversationKept : q.openConversation;
        const row = (await open(run, listingId, senderId, recipientId)).rows[0];
        return row && toConversation(row);
      },
      async create(listingId, senderId, recipientId, at) {
        const id = await own.insertConversation(run, listingId, senderId, recipientId, at);
        return toConversation({ id, ...newConversationRow(listingId, senderId, recipientId, at) });
      },
      ...(own.openOrCreateConversation && {
        async openOrCreate(listingId: number, senderId: number, recipientId: number, at: number, first: FirstMessage) {
          const opened = await own.openOrCreateConversation!(run, listingId, senderId, recipientId, at, first);
          if (opened.appended) await recordMessageFiles(run, opened.appended.id, first.attachments);
          return opened;
        },
      }),
      async findById(conId) {
        const row = (await (own.keepsConversations ? q.conversationKept : q.conversationById)(run, conId)).rows[0];
        return row && toConversation(row);
      },
      async findForReader(conId, readerId) {
        const row = (await own.chatReads.conversationForReader(run, conId, readerId)).rows[0];
        if (!row) return undefined;
        const conversation = toConversation(row);
        const listing = await listingAt(run, cache, conversation.listingId, row.listing_version);
        return { conversation, listing, unreadCount: Number(row.unread ?? 0) };
      },
      async unreadFrom(conId, senderId) {
        return Number((await q.unreadFrom(run, conId, senderId)).rows[0]?.n ?? 0);
      },
      async listFor(userId, offset, limit, listedOnly) {
        const page = listedOnly ? own.chatReads.listedConversationPage : own.chatReads.conversationPage;
        const rows = (await page(run, userId, limit, offset)).rows;
        const wanted = rows.map((row) => ({ id: row.listing_id, version: row.listing_version }));
        const listings = await listingsAt(run, cache, wanted, own.listingsByIds);
        return rows.map((row, i) => toConversationListRow(row, listings[i]));
      },
      async countFor(userId, listedOnly) {
        const count = listedOnly ? q.listedConversationCount : q.conversationCount;
        return Number((await count(run, userId)).rows[0]?.n ?? 0);
      },
      async leave(conId, side: Side) {
        await (side === 'sender' ? q.leaveAsSender : q.leaveAsRecipient)(run, conId);
      },
    },
    messages: {
      async findByTempId(conId, sourceId, tempId) {
        const row = (await q.messageByTempId(run, conId, sourceId, tempId)).rows[0];
        return row && toMessage(row);
      },
      async findById(id) {
        const row = (await q.messageById(run, id)).rows[0];
        return row && toMessage(row);
      },
      async append(m) {
        const id = await own.appendMessage(run, m);
        await recordMessageFiles(run, id, m.attachments);
        return storedMessage(id, m);
      },
      async pageOf(conId, afterId, offset, limit) {
        return (await q.messagePage.arrays(run, conId, afterId, limit, offset)).map(toMessageFromValues);
      },
      async countOf(conId, afterId) {
        // Message ids are positive: after 0 is the whole conversation, whose count is kept.
        const counted = afterId <= 0 ? q.keptMessageCount(run, conId) : q.messageCount(run, conId, afterId);
        return Number((await counted).rows[0]?.n ?? 0);
      },
      async markRead(conId, sourceId, upToId) {
        return Number((await q.markRead(run, conId, sourceId, upToId)).numAffectedRows ?? 0);
      },
    },
    reports: reportRepository(run, own.lockListing),
  };
}
