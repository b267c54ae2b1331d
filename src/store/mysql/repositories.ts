/**
 * The use cases' repositories over a WordPress site's own tables, writing what the plugin writes:
 * favourites as the `rtcl_favourites` user meta (a PHP-serialised list of listing ids, re-indexed
 * on every write, read under FOR UPDATE), conversations and messages in the plugin's chat tables
 * with times in the site's local time and text with its tags stripped. A message's client
 * `temp_id` lives in Souk's own `{prefix}souk_message_temp_ids`.
 */
import { sql } from 'kysely';
import { serialize, unserialize } from 'php-serialize';
import type { Conversation, ConversationListRow, Message, MessageType, NewMessage, Side } from '../../domain/model.js';
import type { FavouriteListRepository, Repositories } from '../../domain/ports.js';
import { listingStatus, loadListing, loadShownListings, loadUser, publishedAmong } from './catalog.js';
import { rows, T, type ChatForm, type Db, type MysqlContext } from './context.js';
import type { SiteClock } from './site.js';

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

/** Text as the plugin stores it: the site prints stored text as HTML, so tags are stripped (as wp_strip_all_tags). */
export function storedText(text: string): string {
  return text.replace(/<(script|style)[^>]*?>[\s\S]*?<\/\1>/gi, '').replace(/<\/?[A-Za-z!?][^>]*(>|$)/g, '');
}

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
    ? sql`m.message_id, m.con_id, m.source_id, m.type, m.message, m.attachments, m.is_read, m.created_at`
    : sql`m.message_id, m.con_id, m.source_id, null as type, m.message, null as attachments, m.is_read, m.created_at`;
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
      const parsed: unknown = JSON.parse(row.attachments);
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
    // The plugin's `system` messages read as text: the interface knows text and attachment.
    type: (row.type === 'attachment' ? 'attachment' : 'text') as MessageType,
    attachments,
    isRead: Number(row.is_read) !== 0,
    tempId: row.temp_id ?? null,
    createdAt: clock.epoch(row.created_at),
  };
}

async function favouriteIds(db: Db, ctx: MysqlContext, userId: number, lock: boolean): Promise<{ id: number | null; ids: number[] }> {
  const [row] = await rows(
    db,
    sql<{ umeta_id: number | string; meta_value: string | null }>`select umeta_id, meta_value from ${T(ctx.t.usermeta)}
      where user_id = ${userId} and meta_key = ${FAVOURITES_META_KEY} order by umeta_id limit 1 ${lock ? sql`for update` : sql``}`,
  );
  return { id: row ? Number(row.umeta_id) : null, ids: parseFavourites(row?.meta_value) };
}

/** Every port's repository over `db`: the pool, or a transaction's connection. */
export function mysqlRepositories(db: Db, ctx: MysqlContext): Repositories {
  const { t } = ctx;
  const clock = async () => (await ctx.site()).clock;
  return {
    users: {
      findById: async (id) => (await loadUser(db, ctx, { id }))?.user,
    },
    listings: {
      findById: (id) => loadListing(db, ctx, id),
      statusOf: (id) => listingStatus(db, ctx, id),
    },
    favourites: {
      async toggle(userId, listingId) {
        // The caller's transaction holds the user's row (index.ts); the meta row is read for update too.
        const { id, ids } = await favouriteIds(db, ctx, userId, true);
        const after = ids.includes(listingId) ? ids.filter((x) => x !== listingId) : [...ids, listingId];
        const value = serializeFavourites(after);
        if (id === null) {
          await sql`insert into ${T(t.usermeta)} (user_id, meta_key, meta_value) values (${userId}, ${FAVOURITES_META_KEY}, ${value})`.execute(
            db,
          );
        } else {
          await sql`update ${T(t.usermeta)} set meta_value = ${value} where umeta_id = ${id}`.execute(db);
        }
        return after;
      },
      listIds: async (userId) => (await favouriteIds(db, ctx, userId, false)).ids,
    },
    conversations: {
      async findOpen(listingId, senderId, recipientId) {
        const form = await ctx.chat();
        const [row] = await rows(
          db,
          sql<ConversationRow>`select ${conversationColumns(ctx, form)} from ${T(t.conversations)} c
            where c.listing_id = ${listingId} and c.sender_id = ${senderId} and c.recipient_id = ${recipientId}
              and c.sender_delete = 0 and c.recipient_delete = 0
            order by c.con_id desc limit 1`,
        );
        return row && toConversation(row, await clock());
      },
      async create(listingId, senderId, recipientId, at) {
        const form = await ctx.chat();
        const local = (await clock()).local(at);
        const result = form.conversationUpdatedAt
          ? await sql`insert into ${T(t.conversations)} (listing_id, sender_id, recipient_id, created_at, updated_at)
              values (${listingId}, ${senderId}, ${recipientId}, ${local}, ${local})`.execute(db)
          : await sql`insert into ${T(t.conversations)} (listing_id, sender_id, recipient_id, created_at)
              values (${listingId}, ${senderId}, ${recipientId}, ${local})`.execute(db);
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
        const form = await ctx.chat();
        const [row] = await rows(
          db,
          sql<ConversationRow>`select ${conversationColumns(ctx, form)} from ${T(t.conversations)} c where c.con_id = ${conId}`,
        );
        return row && toConversation(row, await clock());
      },
      async unreadFrom(conId, senderId) {
        const [row] = await rows(
          db,
          sql<{
            n: number | string;
          }>`select count(*) as n from ${T(t.messages)} where con_id = ${conId} and source_id = ${senderId} and is_read = 0`,
        );
        return Number(row?.n ?? 0);
      },
      async listFor(userId, offset, limit, listedOnly): Promise<ConversationListRow[]> {
        const form = await ctx.chat();
        const c = await clock();
        const found = await rows(
          db,
          sql<
            ConversationRow & {
              last_text: string | null;
              last_is_read: number | null;
              last_source_id: number | null;
              last_created_at: string | null;
              unread: number | string;
            }
          >`
            select ${conversationColumns(ctx, form)}, m.message as last_text, m.is_read as last_is_read, m.source_id as last_source_id,
              m.created_at as last_created_at,
              (select count(*) from ${T(t.messages)} u where u.con_id = c.con_id and u.is_read = 0
                and u.source_id = case when c.sender_id = ${userId} then c.recipient_id else c.sender_id end) as unread
            from ${T(t.conversations)} c left join ${T(t.messages)} m on m.message_id = c.last_message_id
            where ${participantOf(userId)} ${listedOnly ? listed(ctx) : sql``}
            order by c.last_message_id desc, c.con_id desc limit ${limit} offset ${offset}`,
        );
        return found.map((row) => ({
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
      },
      async countFor(userId, listedOnly) {
        const [row] = await rows(
          db,
          sql<{ n: number | string }>`select count(*) as n from ${T(t.conversations)} c
            where ${participantOf(userId)} ${listedOnly ? listed(ctx) : sql``}`,
        );
        return Number(row?.n ?? 0);
      },
      async leave(conId, side: Side) {
        const column = side === 'sender' ? sql`sender_delete` : sql`recipient_delete`;
        await sql`update ${T(t.conversations)} set ${column} = 1 where con_id = ${conId}`.execute(db);
      },
    },
    messages: {
      async findByTempId(conId, sourceId, tempId) {
        const form = await ctx.chat();
        const [row] = await rows(
          db,
          sql<MessageRow>`select ${messageColumns(form)}, s.temp_id from ${T(t.soukMessageTempIds)} s
            join ${T(t.messages)} m on m.message_id = s.message_id
            where s.con_id = ${conId} and s.source_id = ${sourceId} and s.temp_id = ${tempId} order by m.message_id limit 1`,
        );
        return row && toMessage(row, await clock());
      },
      async findById(id) {
        const form = await ctx.chat();
        const [row] = await rows(db, sql<MessageRow>`select ${messageColumns(form)} from ${T(t.messages)} m where m.message_id = ${id}`);
        return row && toMessage(row, await clock());
      },
      async append(m: NewMessage) {
        const form = await ctx.chat();
        const c = await clock();
        const local = c.local(m.createdAt);
        const text = storedText(m.text);
        const attachments = m.attachments === null ? null : JSON.stringify(m.attachments);
        const inserted = form.messageDetails
          ? await sql`insert into ${T(t.messages)} (con_id, source_id, type, message, attachments, meta, is_read, created_at)
              values (${m.conId}, ${m.sourceId}, ${m.type}, ${text}, ${attachments}, null, 0, ${local})`.execute(db)
          : await sql`insert into ${T(t.messages)} (con_id, source_id, message, is_read, created_at)
              values (${m.conId}, ${m.sourceId}, ${text}, 0, ${local})`.execute(db);
        const id = Number(inserted.insertId);
        // Both participants may write at once: the conversation never moves back to an older message.
        await (
          form.conversationUpdatedAt
            ? sql`update ${T(t.conversations)} set last_message_id = greatest(coalesce(last_message_id, 0), ${id}),
              updated_at = case when updated_at < ${local} then ${local} else updated_at end where con_id = ${m.conId}`
            : sql`update ${T(t.conversations)} set last_message_id = greatest(coalesce(last_message_id, 0), ${id}) where con_id = ${m.conId}`
        ).execute(db);
        if (m.tempId !== null) {
          await sql`insert into ${T(t.soukMessageTempIds)} (message_id, con_id, source_id, temp_id)
            values (${id}, ${m.conId}, ${m.sourceId}, ${m.tempId})`.execute(db);
        }
        return {
          id,
          conId: m.conId,
          sourceId: m.sourceId,
          text,
          type: m.type,
          attachments: form.messageDetails ? m.attachments : null,
          isRead: false,
          tempId: m.tempId,
          createdAt: c.epoch(local),
        };
      },
      async pageOf(conId, afterId, offset, limit) {
        const form = await ctx.chat();
        const c = await clock();
        const found = await rows(
          db,
          sql<MessageRow>`select ${messageColumns(form)} from ${T(t.messages)} m where m.con_id = ${conId} and m.message_id > ${afterId}
            order by m.message_id desc limit ${limit} offset ${offset}`,
        );
        return found.map((row) => toMessage(row, c));
      },
      async countOf(conId, afterId) {
        const [row] = await rows(
          db,
          sql<{ n: number | string }>`select count(*) as n from ${T(t.messages)} where con_id = ${conId} and message_id > ${afterId}`,
        );
        return Number(row?.n ?? 0);
      },
      async markRead(conId, sourceId, upToId) {
        const result = await sql`update ${T(t.messages)} set is_read = 1
          where con_id = ${conId} and source_id = ${sourceId} and is_read = 0 and message_id <= ${upToId}`.execute(db);
        return Number(result.numAffectedRows ?? 0);
      },
    },
  };
}

const participantOf = (userId: number) =>
  sql`((c.sender_id = ${userId} and c.sender_delete = 0) or (c.recipient_id = ${userId} and c.recipient_delete = 0))`;

const listed = (ctx: MysqlContext) =>
  sql`and exists (select 1 from ${T(ctx.t.posts)} p where p.ID = c.listing_id and p.post_type = 'rtcl_listing')`;

/** GET my/favourites: the user's favourites whose listing is published, most recently added first. */
export function mysqlFavouriteLists(db: Db, ctx: MysqlContext): FavouriteListRepository {
  const shownIds = async (userId: number) => {
    const { ids } = await favouriteIds(db, ctx, userId, false);
    const published = await publishedAmong(db, ctx, ids);
    return ids.filter((id) => published.has(id)).reverse();
  };
  return {
    async shownPage(userId, offset, limit) {
      const ids = (await shownIds(userId)).slice(offset, offset + limit);
      return loadShownListings(db, ctx, ids);
    },
    countShown: async (userId) => (await shownIds(userId)).length,
  };
}
