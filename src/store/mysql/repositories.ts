/**
 * The use cases' repositories over a WordPress site's own tables, writing what the plugin writes:
 * favourites as the `rtcl_favourites` user meta (a PHP-serialised list of listing ids, re-indexed
 * on every write, read under FOR UPDATE), conversations and messages in the plugin's chat tables
 * with times in the site's local time and text with its tags stripped. A message's client
 * `temp_id` lives in Souk's own `{prefix}souk_message_temp_ids`.
 */
import { sql, type CompiledQuery } from 'kysely';
import { serialize, unserialize } from 'php-serialize';
import {
  canBeFavourited,
  type Conversation,
  type ConversationListRow,
  type Listing,
  type Message,
  type NewMessage,
  type Side,
  type User,
} from '../../domain/model.js';
import type { FavouriteListRepository, Repositories } from '../../domain/ports.js';
import {
  findListings,
  listingOfState,
  listingStatus,
  loadShownListings,
  loadUser,
  loadUsers,
  publishedAmong,
  statusQuery,
  statusOfRow,
} from './catalog.js';
import { statement, T, together, type ChatForm, type Db, type MysqlContext } from './context.js';
import type { SiteClock } from './site.js';
import { mysqlReports } from './reports.js';
import { messageFilesInsert } from './file-references.js';
import { mysqlOffers } from './offers.js';
import { mysqlMessageEdits } from './message-edits.js';
import { siteAttachments, siteText } from './site-text.js';
import { metaText, typeAndOffer } from '../common/rows.js';
import {
  blockedUsersQuery,
  blockMetasQuery,
  blocksOfRows,
  mysqlBlockRepository,
  openKey,
  pairOf,
  participantMetasQuery,
  publishedWithAuthors,
  type BlockPrefetch,
} from './blocks.js';

export const FAVOURITES_META_KEY = 'rtcl_favourites';

/** The listing ids of an `rtcl_favourites` value, in its order; anything unreadable is none. */
export function parseFavourites(raw: string | null | undefined): number[] {
  if (!raw) return [];
  let value: unknown;
  try {
    value = unserialize(raw, {}, { strict: false });
  } catch {
    return [];
  }
  if (!value || typeof value !== 'object') return [];
  const ids = Object.values(value as Record<string, unknown>)
    .map(Number)
    .filter((n) => Number.isSafeInteger(n) && n > 0);
  return [...new Set(ids)];
}

/** The value the plugin writes: the list re-indexed from 0 (`a:2:{i:0;i:8;i:1;i:10;}`). */
export const serializeFavourites = (ids: number[]): string => serialize(ids.map(Number));

export interface ConversationRow {
  con_id: number | string;
  listing_id: number | string;
  sender_id: number | string;
  recipient_id: number | string;
  sender_delete: number | string;
  recipient_delete: number | string;
  last_message_id: number | string | null;
  sender_review: number | string;
  recipient_review: number | string;
  invert_review: number | string;
  created_at: string;
  updated_at: string | null;
}

export interface MessageRow {
  message_id: number | string;
  con_id: number | string;
  source_id: number | string;
  type: string | null;
  message: string | null;
  attachments: string | null;
  /** Souk's offers (store/common/rows.ts, metaText); null elsewhere. Parsed already where MariaDB marks the column JSON. */
  meta: unknown;
  is_read: number | string;
  created_at: string;
  temp_id?: string | null;
}

/** A conversation's columns; on 2.x, without updated_at, its last message's time (else its creation). */
export function conversationColumns(ctx: MysqlContext, form: ChatForm) {
  const updated = form.conversationUpdatedAt
    ? sql`c.updated_at`
    : sql`coalesce((select lm.created_at from ${T(ctx.t.messages)} lm where lm.message_id = c.last_message_id), c.created_at)`;
  return sql`c.con_id, c.listing_id, c.sender_id, c.recipient_id, c.sender_delete, c.recipient_delete, c.last_message_id,
    c.sender_review, c.recipient_review, c.invert_review, c.created_at, ${updated} as updated_at`;
}

export function messageColumns(form: ChatForm) {
  return form.messageDetails
    ? sql`m.message_id, m.con_id, m.source_id, m.type, m.message, m.attachments, m.meta, m.is_read, m.created_at`
    : sql`m.message_id, m.con_id, m.source_id, null as type, m.message, null as attachments, null as meta, m.is_read, m.created_at`;
}

export function toConversation(row: ConversationRow, clock: SiteClock): Conversation {
  const createdAt = clock.epoch(row.created_at);
  return {
    id: Number(row.con_id),
    listingId: Number(row.listing_id),
    senderId: Number(row.sender_id),
    recipientId: Number(row.recipient_id),
    senderDelete: Number(row.sender_delete) !== 0,
    recipientDelete: Number(row.recipient_delete) !== 0,
    senderReview: Number(row.sender_review) !== 0,
    recipientReview: Number(row.recipient_review) !== 0,
    invertReview: Number(row.invert_review) !== 0,
    lastMessageId: row.last_message_id === null || Number(row.last_message_id) === 0 ? null : Number(row.last_message_id),
    createdAt,
    updatedAt: row.updated_at ? clock.epoch(row.updated_at) : createdAt,
  };
}

export function toMessage(row: MessageRow, clock: SiteClock): Message {
  let attachments: Message['attachments'] = null;
  if (row.attachments) {
    try {
      // MariaDB marks a JSON column (json_valid) as such and mysql2 then parses it: an array already.
      const parsed: unknown = typeof row.attachments === 'string' ? JSON.parse(row.attachments) : row.attachments;
      attachments = Array.isArray(parsed) && parsed.length > 0 ? (parsed as Message['attachments']) : null;
    } catch {
      attachments = null;
    }
  }
  return {
    id: Number(row.message_id),
    conId: Number(row.con_id),
    sourceId: Number(row.source_id),
    text: row.message ?? '',
    // The plugin's `system` messages read as text; an offer is known by its meta (typeAndOffer).
    ...typeAndOffer(row.type, row.meta),
    attachments,
    isRead: Number(row.is_read) !== 0,
    tempId: row.temp_id ?? null,
    createdAt: clock.epoch(row.created_at),
  };
}

type FavouritesRow = { umeta_id: number | string | null; meta_value: string | null };

const favouritesQuery = statement(
  (ctx, variant, userId: number) =>
    sql<FavouritesRow>`select umeta_id, meta_value from ${T(ctx.t.usermeta)}
      where user_id = ${userId} and meta_key = ${FAVOURITES_META_KEY} order by umeta_id limit 1 ${variant === 'lock' ? sql`for update` : sql``}`,
);
/**
 * The writer's row lock and their favourites rows, read for update, in one statement: the user
 * row first (the left join's outer table), as a separate lock would take it. Unsorted: ORDER BY on
 * the joined table costs MariaDB a temporary table and a sort (four times the statement's CPU);
 * the first row is picked here (firstRow).
 */
const lockAndFavourites = statement(
  (ctx, _variant, userId: number) =>
    sql<FavouritesRow>`select m.umeta_id, m.meta_value from ${T(ctx.t.users)} u
      left join ${T(ctx.t.usermeta)} m on m.user_id = u.ID and m.meta_key = ${FAVOURITES_META_KEY}
      where u.ID = ${userId} for update`,
);

/** The row with the lowest umeta_id, as `order by umeta_id limit 1` picks it (a user may have two). */
function firstRow<R extends { umeta_id: number | string | null }>(found: R[]): R | undefined {
  let first = found[0];
  for (const row of found) if (row.umeta_id !== null && Number(row.umeta_id) < Number(first!.umeta_id)) first = row;
  return first;
}
const insertFavourites = statement(
  (ctx, _variant, userId: number, value: string) =>
    sql`insert into ${T(ctx.t.usermeta)} (user_id, meta_key, meta_value) values (${userId}, ${FAVOURITES_META_KEY}, ${value})`,
);
const updateFavourites = statement(
  (ctx, _variant, id: number, value: string) => sql`update ${T(ctx.t.usermeta)} set meta_value = ${value} where umeta_id = ${id}`,
);

async function favouritesRow(
  db: Db,
  ctx: MysqlContext,
  userId: number,
  lock: 'no' | 'row' | 'writer-and-row',
): Promise<FavouritesRow | undefined> {
  return lock === 'writer-and-row'
    ? firstRow((await lockAndFavourites(db, ctx, '', userId)).rows)
    : (await favouritesQuery(db, ctx, lock === 'row' ? 'lock' : '', userId)).rows[0];
}

const favouriteIds = async (db: Db, ctx: MysqlContext, userId: number) =>
  parseFavourites((await favouritesRow(db, ctx, userId, 'no'))?.meta_value);

/** The writer's row lock: one user's units of work run one at a time, on every instance. */
export const lockWriter = statement(
  (ctx, _variant, userId: number) => sql`select ID from ${T(ctx.t.users)} where ID = ${userId} for update`,
);

/**
 * A unit of work's transaction (unit-of-work.ts), begun by the first statement that needs it:
 * reads of the catalog (a listing, a user) run before, outside the transaction and the writer's
 * lock, as they would under READ COMMITTED inside it (they take no lock). BEGIN and the lock are
 * sent with the next statement on the unit's connection, in the same round trip.
 */
export interface WriteScope {
  writer: number | undefined;
  /** Begins the transaction and takes the writer's lock, once; before a statement that writes or must see the locked state. */
  enter(): Promise<void>;
  /**
   * Begins the transaction; true when the writer's lock is still to be taken and the caller's next
   * statement takes it (FOR UPDATE of the writer's row, which must be `writer`'s).
   */
  enterTakingLock(): boolean;
  /** A write in the transaction whose result nobody reads: sent with the next statement, or with COMMIT. */
  later(query: CompiledQuery): void;
  /** Whether the transaction is begun (enter or enterTakingLock was called). */
  entered(): boolean;
}

/** Lookups made in one turn of the event loop, sent as one query (a page of conversations' users and listings). */
function batched<V>(loadMany: (ids: number[]) => Promise<Map<number, V>>): (id: number) => Promise<V | undefined> {
  let waiting: Map<number, { resolve: (v: V | undefined) => void; reject: (e: unknown) => void }[]> | undefined;
  const flush = () => {
    const batch = waiting!;
    waiting = undefined;
    loadMany([...batch.keys()]).then(
      (found) => {
        for (const [id, callers] of batch) for (const c of callers) c.resolve(found.get(id));
      },
      (error: unknown) => {
        for (const callers of batch.values()) for (const c of callers) c.reject(error);
      },
    );
  };
  return (id) =>
    new Promise<V | undefined>((resolve, reject) => {
      if (!waiting) {
        waiting = new Map();
        setImmediate(flush);
      }
      const callers = waiting.get(id);
      if (callers) callers.push({ resolve, reject });
      else waiting.set(id, [{ resolve, reject }]);
    });
}

/** The chat tables' form as a statement's variant, and back. */
const formKey = (form: ChatForm) => `${form.messageDetails ? 'm' : ''}${form.conversationUpdatedAt ? 'u' : ''}`;
const formOf = (variant: string): ChatForm => ({ messageDetails: variant.includes('m'), conversationUpdatedAt: variant.includes('u') });

type ReaderRow = ConversationRow & {
  unread: number | string;
  p_id: number | string | null;
  p_author: number | string;
  p_title: string;
  p_name: string;
  p_status: string;
  p_modified: string;
};

type ListRow = ConversationRow & {
  last_text: string | null;
  last_is_read: number | null;
  last_source_id: number | null;
  last_created_at: string | null;
  unread: number | string;
};

const q = {
  openConversation: statement(
    (ctx, variant, listingId: number, senderId: number, recipientId: number) =>
      sql<ConversationRow>`select ${conversationColumns(ctx, formOf(variant))} from ${T(ctx.t.conversations)} c
        where c.listing_id = ${listingId} and c.sender_id = ${senderId} and c.recipient_id = ${recipientId}
          and c.sender_delete = 0 and c.recipient_delete = 0
        order by c.con_id desc limit 1`,
  ),
  insertConversation: statement((ctx, variant, listingId: number, senderId: number, recipientId: number, local: string) =>
    formOf(variant).conversationUpdatedAt
      ? sql`insert into ${T(ctx.t.conversations)} (listing_id, sender_id, recipient_id, created_at, updated_at)
          values (${listingId}, ${senderId}, ${recipientId}, ${local}, ${local})`
      : sql`insert into ${T(ctx.t.conversations)} (listing_id, sender_id, recipient_id, created_at)
          values (${listingId}, ${senderId}, ${recipientId}, ${local})`,
  ),
  // The reader's conversation with the messages of the other participant still unread and its
  // listing's post row (catalog.ts, listingOfState): one statement for findForReader.
  conversationForReader: statement(
    (ctx, variant, readerId: number, conId: number) =>
      sql<ReaderRow>`select ${conversationColumns(ctx, formOf(variant))},
          (select count(*) from ${T(ctx.t.messages)} u where u.con_id = c.con_id and u.is_read = 0
            and u.source_id = case when c.sender_id = ${readerId} then c.recipient_id else c.sender_id end) as unread,
          p.ID as p_id, p.post_author as p_author, p.post_title as p_title, p.post_name as p_name, p.post_status as p_status,
          p.post_modified_gmt as p_modified
        from ${T(ctx.t.conversations)} c left join ${T(ctx.t.posts)} p on p.ID = c.listing_id and p.post_type = 'rtcl_listing'
        where c.con_id = ${conId}`,
  ),
  // Variant `x`: read for update, held until the transaction ends (kept, below).
  conversationById: statement(
    (ctx, variant, conId: number) =>
      sql<ConversationRow>`select ${conversationColumns(ctx, formOf(variant))} from ${T(ctx.t.conversations)} c where c.con_id = ${conId}
        ${variant.includes('x') ? sql`for update` : sql``}`,
  ),
  unreadFrom: statement(
    (ctx, _variant, conId: number, senderId: number) =>
      sql<{ n: number | string }>`select count(*) as n from ${T(ctx.t.messages)}
        where con_id = ${conId} and source_id = ${senderId} and is_read = 0`,
  ),
  conversationPage: statement(
    (ctx, variant, userId: number, limit: number, offset: number, blocked: string) =>
      sql<ListRow>`
        select ${conversationColumns(ctx, formOf(variant))}, m.message as last_text, m.is_read as last_is_read, m.source_id as last_source_id,
          m.created_at as last_created_at,
          (select count(*) from ${T(ctx.t.messages)} u where u.con_id = c.con_id and u.is_read = 0
            and u.source_id = case when c.sender_id = ${userId} then c.recipient_id else c.sender_id end) as unread
        from ${T(ctx.t.conversations)} c left join ${T(ctx.t.messages)} m on m.message_id = c.last_message_id
        where ${participantOf(userId)} ${variant.includes('L') ? listed(ctx) : sql``} ${notBlocked(variant, userId, blocked)}
        order by c.last_message_id desc, c.con_id desc limit ${limit} offset ${offset}`,
  ),
  conversationCount: statement(
    (ctx, variant, userId: number, blocked: string) =>
      sql<{ n: number | string }>`select count(*) as n from ${T(ctx.t.conversations)} c
        where ${participantOf(userId)} ${variant.includes('L') ? listed(ctx) : sql``} ${notBlocked(variant, userId, blocked)}`,
  ),
  leave: statement((ctx, variant, conId: number) =>
    variant === 'sender'
      ? sql`update ${T(ctx.t.conversations)} set sender_delete = 1 where con_id = ${conId}`
      : sql`update ${T(ctx.t.conversations)} set recipient_delete = 1 where con_id = ${conId}`,
  ),
  messageByTempId: statement(
    (ctx, variant, conId: number, sourceId: number, tempId: string) =>
      sql<MessageRow>`select ${messageColumns(formOf(variant))}, s.temp_id from ${T(ctx.t.soukMessageTempIds)} s
        join ${T(ctx.t.messages)} m on m.message_id = s.message_id
        where s.con_id = ${conId} and s.source_id = ${sourceId} and s.temp_id = ${tempId} order by m.message_id limit 1`,
  ),
  messageById: statement(
    (ctx, variant, id: number) =>
      sql<MessageRow>`select ${messageColumns(formOf(variant))} from ${T(ctx.t.messages)} m where m.message_id = ${id}`,
  ),
  insertMessage: statement(
    (
      ctx,
      variant,
      conId: number,
      sourceId: number,
      type: string,
      text: string,
      attachments: string | null,
      meta: string | null,
      local: string,
    ) =>
      formOf(variant).messageDetails
        ? sql`insert into ${T(ctx.t.messages)} (con_id, source_id, type, message, attachments, meta, is_read, created_at)
            values (${conId}, ${sourceId}, ${type}, ${text}, ${attachments}, ${meta}, 0, ${local})`
        : sql`insert into ${T(ctx.t.messages)} (con_id, source_id, message, is_read, created_at)
            values (${conId}, ${sourceId}, ${text}, 0, ${local})`,
  ),
  // Both participants may write at once: the conversation never moves back to an older message.
  lastMessage: statement((ctx, variant, conId: number, id: number, local: string) =>
    formOf(variant).conversationUpdatedAt
      ? sql`update ${T(ctx.t.conversations)} set last_message_id = greatest(coalesce(last_message_id, 0), ${id}),
          updated_at = case when updated_at < ${local} then ${local} else updated_at end where con_id = ${conId}`
      : sql`update ${T(ctx.t.conversations)} set last_message_id = greatest(coalesce(last_message_id, 0), ${id}) where con_id = ${conId}`,
  ),
  insertTempId: statement(
    (ctx, _variant, id: number, conId: number, sourceId: number, tempId: string) =>
      sql`insert into ${T(ctx.t.soukMessageTempIds)} (message_id, con_id, source_id, temp_id) values (${id}, ${conId}, ${sourceId}, ${tempId})`,
  ),
  messagePage: statement(
    (ctx, variant, conId: number, afterId: number, limit: number, offset: number) =>
      sql<MessageRow>`select ${messageColumns(formOf(variant))} from ${T(ctx.t.messages)} m where m.con_id = ${conId} and m.message_id > ${afterId}
        order by m.message_id desc limit ${limit} offset ${offset}`,
  ),
  messageCount: statement(
    (ctx, _variant, conId: number, afterId: number) =>
      sql<{ n: number | string }>`select count(*) as n from ${T(ctx.t.messages)} where con_id = ${conId} and message_id > ${afterId}`,
  ),
  markRead: statement(
    (ctx, _variant, conId: number, sourceId: number, upToId: number) => sql`update ${T(ctx.t.messages)} set is_read = 1
      where con_id = ${conId} and source_id = ${sourceId} and is_read = 0 and message_id <= ${upToId}`,
  ),
};

/**
 * Every port's repository over `db`: the pool, or a unit of work's connection with its `scope`
 * (statements that write or must run under the writer's lock enter it first). On the pool, the
 * users and listings looked up in one turn of the event loop are read together.
 */
export function mysqlRepositories(db: Db, ctx: MysqlContext, scope?: WriteScope): Repositories {
  const clock = async () => (await ctx.site()).clock;
  const enter = scope ? () => scope.enter() : () => Promise.resolve();
  const form = async () => formKey(await ctx.chat());
  const findUser = async (id: number) => (await loadUser(db, ctx, { id }))?.user;
  const findListing = async (id: number) => (await findListings(db, ctx, [id])).get(id);
  const user: (id: number) => Promise<User | undefined> = scope ? findUser : batched((ids) => loadUsers(db, ctx, ids));
  const listing: (id: number) => Promise<Listing | undefined> = scope ? findListing : batched((ids) => findListings(db, ctx, ids));
  /** A write whose result nobody reads: in a unit of work it waits for the next statement (WriteScope.later). */
  const write = async (query: CompiledQuery) => (scope ? scope.later(query) : void (await db.executeQuery(query)));
  /**
   * The conversation, held until the transaction ends: the retention's delete waits for a writer
   * that holds it, then finds it active; one it deleted first is not found (the plugin's tables
   * have no foreign key to refuse a message in a conversation gone).
   */
  const kept = async (conId: number) => (await q.conversationById(db, ctx, `${await form()}x`, conId)).rows[0];
  /**
   * A chat list's statement without the conversations with users `userId` blocked (docs/safety.md):
   * sent with the read of their blocked users, in one round trip; sent again with them left out
   * only when the list is not empty.
   */
  const withoutBlocked = async (userId: number, build: (variant: '' | 'B', blocked: string) => CompiledQuery) => {
    const [meta, plain] = await together(db, ctx, [blockedUsersQuery(ctx, userId), build('', '')]);
    const blocked = blocksOfRows(meta!.rows, userId).users;
    return blocked.length === 0 ? plain! : (await together(db, ctx, [build('B', blocked.join(','))]))[0]!;
  };
  /**
   * The user's favourites row, read for update, once the listing is known to be one they can
   * favourite; undefined when it is not. In the writer's unit of work, BEGIN and the writer's lock
   * with their favourites rows go in the same round trip as the listing's status.
   */
  async function favouritesToToggle(userId: number, listingId: number): Promise<{ row: FavouritesRow | undefined } | undefined> {
    if (scope?.writer === userId && scope.enterTakingLock()) {
      const [status, favourites] = await together(db, ctx, [
        statusQuery.compiled(ctx, '', listingId),
        lockAndFavourites.compiled(ctx, '', userId),
      ]);
      const listed = canBeFavourited(statusOfRow(status!.rows[0] as { post_status: string } | undefined));
      return listed ? { row: firstRow(favourites!.rows as FavouritesRow[]) } : undefined;
    }
    if (!canBeFavourited(await listingStatus(db, ctx, listingId))) return undefined;
    // The unit of work holds the user's row (unit-of-work.ts); the meta row is read for update
    // too, with the user's row when its lock is still to be taken.
    const takeLock = scope !== undefined && scope.writer === userId ? scope.enterTakingLock() : (await enter(), false);
    return { row: await favouritesRow(db, ctx, userId, takeLock ? 'writer-and-row' : 'row') };
  }
  /** The message inserted, made its conversation's last, and its temp_id kept. */
  async function append(m: NewMessage): Promise<Message> {
    await enter();
    const chat = await ctx.chat();
    const variant = formKey(chat);
    const c = await clock();
    const local = c.local(m.createdAt);
    const text = siteText(m.text);
    const files = m.attachments === null ? null : siteAttachments(m.attachments);
    const attachments = files === null ? null : JSON.stringify(files);
    // The plugin's column is an enum of text, attachment and system: an offer is a text its meta names (typeAndOffer).
    const type = m.type === 'offer' ? 'text' : m.type;
    const inserted = await q.insertMessage(db, ctx, variant, m.conId, m.sourceId, type, text, attachments, metaText(m), local);
    const id = Number(inserted.insertId);
    await write(q.lastMessage.compiled(ctx, variant, m.conId, id, local));
    if (m.tempId !== null) await write(q.insertTempId.compiled(ctx, '', id, m.conId, m.sourceId, m.tempId));
    const named = chat.messageDetails ? messageFilesInsert(ctx, id, m) : undefined;
    if (named) await write(named.compile(db));
    return {
      id,
      conId: m.conId,
      sourceId: m.sourceId,
      text,
      type: m.type,
      attachments: chat.messageDetails ? files : null,
      isRead: false,
      tempId: m.tempId,
      createdAt: c.epoch(local),
      ...(m.offer && { offer: m.offer }),
    };
  }
  /** The appends asked for so far in the unit (unreadFrom waits for them). */
  let appending: Promise<unknown> = Promise.resolve();
  // In a writer's unit of work, the block checks ride on the statements the chat sends anyway (blocks.ts).
  const prefetch: BlockPrefetch =
    scope?.writer !== undefined
      ? {
          openQuery: async (listingId, senderId, recipientId) =>
            q.openConversation.compiled(ctx, await form(), listingId, senderId, recipientId),
        }
      : {};
  return {
    reports: mysqlReports(db, ctx, enter),
    offers: mysqlOffers(db, ctx, enter, { columns: messageColumns, toMessage }),
    edits: mysqlMessageEdits(db, ctx, enter),
    blocks: mysqlBlockRepository(db, ctx, scope, prefetch),
    users: { findById: (id) => user(id) },
    listings: {
      findById: (id) => listing(id),
    },
    favourites: {
      async toggle(userId, listingId) {
        const read = await favouritesToToggle(userId, listingId);
        if (!read) return undefined;
        const ids = parseFavourites(read.row?.meta_value);
        const after = ids.includes(listingId) ? ids.filter((x) => x !== listingId) : [...ids, listingId];
        const value = serializeFavourites(after);
        const id = read.row && read.row.umeta_id !== null ? Number(read.row.umeta_id) : null;
        await write(id === null ? insertFavourites.compiled(ctx, '', userId, value) : updateFavourites.compiled(ctx, '', id, value));
        return after;
      },
      listIds: (userId) => favouriteIds(db, ctx, userId),
    },
    conversations: {
      async findOpen(listingId, senderId, recipientId) {
        await enter();
        const read = prefetch.open?.key === openKey(listingId, senderId, recipientId) ? prefetch.open.rows : undefined;
        prefetch.open = undefined;
        const [found] = (read ??
          (await q.openConversation(db, ctx, await form(), listingId, senderId, recipientId)).rows) as ConversationRow[];
        // A writer appends to it: held from here (kept) and still open, or the start begins a new one.
        const row = found && scope?.writer !== undefined ? await kept(Number(found.con_id)) : found;
        const open = row && Number(row.sender_delete) === 0 && Number(row.recipient_delete) === 0;
        return open ? toConversation(row, await clock()) : undefined;
      },
      async create(listingId, senderId, recipientId, at) {
        await enter();
        const local = (await clock()).local(at);
        const result = await q.insertConversation(db, ctx, await form(), listingId, senderId, recipientId, local);
        const at1 = (await clock()).epoch(local);
        return {
          id: Number(result.insertId),
          listingId,
          senderId,
          recipientId,
          senderDelete: false,
          recipientDelete: false,
          senderReview: false,
          recipientReview: false,
          invertReview: false,
          lastMessageId: null,
          createdAt: at1,
          updatedAt: at1,
        };
      },
      async findById(conId) {
        await enter();
        if (scope?.writer === undefined) {
          const [row] = (await q.conversationById(db, ctx, await form(), conId)).rows;
          return row && toConversation(row, await clock());
        }
        // A writer's: held until the transaction ends, as kept() holds it.
        const [found, metas] = await together(db, ctx, [
          q.conversationById.compiled(ctx, `${await form()}x`, conId),
          participantMetasQuery(ctx, conId),
        ]);
        const row = found!.rows[0] as ConversationRow | undefined;
        if (!row) return undefined;
        const conversation = toConversation(row, await clock());
        prefetch.pair = pairOf(conversation.senderId, conversation.recipientId, metas!.rows);
        return conversation;
      },
      async findForReader(conId, readerId) {
        // One statement; a kept listing that its post row says is unchanged costs no other.
        await enter();
        const [row] = (await q.conversationForReader(db, ctx, await form(), readerId, conId)).rows;
        if (!row) return undefined;
        const conversation = toConversation(row, await clock());
        const state =
          row.p_id === null
            ? undefined
            : {
                ID: row.p_id,
                post_author: row.p_author,
                post_title: row.p_title,
                post_name: row.p_name,
                post_status: row.p_status,
                post_modified_gmt: row.p_modified,
              };
        const found = await listingOfState(db, ctx, conversation.listingId, state);
        return { conversation, listing: found, unreadCount: Number(row.unread ?? 0) };
      },
      async unreadFrom(conId, senderId) {
        // Asked with an append, it counts the new message (UnitOfWork): the append takes more turns to send its insert.
        await appending;
        await enter();
        return Number((await q.unreadFrom(db, ctx, '', conId, senderId)).rows[0]?.n ?? 0);
      },
      async listFor(userId, offset, limit, listedOnly): Promise<ConversationListRow[]> {
        await enter();
        const variant = `${await form()}${listedOnly ? 'L' : ''}`;
        const c = await clock();
        const found = (
          await withoutBlocked(userId, (v, blocked) => q.conversationPage.compiled(ctx, `${variant}${v}`, userId, limit, offset, blocked))
        ).rows as ListRow[];
        const rows = found.map((row) => ({
          conversation: toConversation(row, c),
          lastMessage:
            row.last_text === null || row.last_created_at === null
              ? null
              : {
                  text: row.last_text,
                  isRead: Number(row.last_is_read) !== 0,
                  sourceId: Number(row.last_source_id),
                  createdAt: c.epoch(row.last_created_at),
                },
          unreadCount: Number(row.unread ?? 0),
        }));
        return Promise.all(rows.map(async (row) => ({ ...row, listing: await listing(row.conversation.listingId) })));
      },
      async countFor(userId, listedOnly) {
        await enter();
        const counted = await withoutBlocked(userId, (v, blocked) =>
          q.conversationCount.compiled(ctx, `${listedOnly ? 'L' : ''}${v}`, userId, blocked),
        );
        return Number((counted.rows[0] as { n: number | string } | undefined)?.n ?? 0);
      },
      async leave(conId, side: Side) {
        await enter();
        await q.leave(db, ctx, side, conId);
      },
    },
    messages: {
      async findByTempId(conId, sourceId, tempId) {
        await enter();
        const [row] = (await q.messageByTempId(db, ctx, await form(), conId, sourceId, tempId)).rows;
        return row && toMessage(row, await clock());
      },
      async findById(id) {
        await enter();
        const [row] = (await q.messageById(db, ctx, await form(), id)).rows;
        return row && toMessage(row, await clock());
      },
      append(m: NewMessage) {
        const appended = append(m);
        appending = appended.catch(() => undefined);
        return appended;
      },
      async pageOf(conId, afterId, offset, limit) {
        await enter();
        const c = await clock();
        const found = (await q.messagePage(db, ctx, await form(), conId, afterId, limit, offset)).rows;
        return found.map((row) => toMessage(row, c));
      },
      async countOf(conId, afterId) {
        await enter();
        return Number((await q.messageCount(db, ctx, '', conId, afterId)).rows[0]?.n ?? 0);
      },
      async markRead(conId, sourceId, upToId) {
        await enter();
        const result = await q.markRead(db, ctx, '', conId, sourceId, upToId);
        return Number(result.numAffectedRows ?? 0);
      },
    },
  };
}

const participantOf = (userId: unknown) =>
  sql`((c.sender_id = ${userId} and c.sender_delete = 0) or (c.recipient_id = ${userId} and c.recipient_delete = 0))`;

/** Variant `B`: not a conversation whose other participant is in `blocked` (comma-separated ids). */
const notBlocked = (variant: string, userId: unknown, blocked: unknown) =>
  variant.includes('B')
    ? sql`and not find_in_set(case when c.sender_id = ${userId} then c.recipient_id else c.sender_id end, ${blocked})`
    : sql``;

const listed = (ctx: MysqlContext) =>
  sql`and exists (select 1 from ${T(ctx.t.posts)} p where p.ID = c.listing_id and p.post_type = 'rtcl_listing')`;

/** GET my/favourites: the user's favourites whose listing is published, most recently added first. */
export function mysqlFavouriteLists(db: Db, ctx: MysqlContext): FavouriteListRepository {
  // Neither a listing the user blocked nor one of a user they blocked (docs/safety.md): their block
  // metas are read with their favourites, in one round trip.
  const shownIds = async (userId: number) => {
    const [favourites, metas] = await together(db, ctx, [favouritesQuery.compiled(ctx, '', userId), blockMetasQuery(ctx, userId)]);
    const ids = parseFavourites((favourites!.rows[0] as FavouritesRow | undefined)?.meta_value);
    const blocks = blocksOfRows(metas!.rows, userId);
    const kept = blocks.listings.length === 0 ? ids : ids.filter((id) => !blocks.listings.includes(id));
    if (blocks.users.length === 0) {
      const published = await publishedAmong(db, ctx, kept);
      return kept.filter((id) => published.has(id)).reverse();
    }
    const authors = await publishedWithAuthors(db, ctx, kept);
    return kept.filter((id) => authors.has(id) && !blocks.users.includes(authors.get(id)!)).reverse();
  };
  return {
    async shownPage(userId, offset, limit) {
      const ids = (await shownIds(userId)).slice(offset, offset + limit);
      return loadShownListings(db, ctx, ids);
    },
    countShown: async (userId) => (await shownIds(userId)).length,
  };
}
