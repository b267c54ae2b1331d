/**
 * A WordPress site read whole, for `souk import --from-wordpress` (moving off the site): its
 * users with their password hashes, its listings with images, terms and details, favourites,
 * block lists, conversations and messages, in the domain's types and by ascending id, a page at a
 * time. Read with the MySQL store's own readers (catalog.ts, repositories.ts, blocks.ts), so that
 * what is copied is what Souk on the site serves. Nothing is written to the site: not even Souk's
 * own tables are created.
 */
import { createRequire } from 'node:module';
import { Kysely, MysqlDialect, sql } from 'kysely';
import type { Pool } from 'mysql2';
import type { Conversation, ListingRecord, Message, UserRecord } from '../../domain/model.js';
import type { BlockLists } from '../common/site-import.js';
import { BLOCKED_LISTINGS_META_KEY, BLOCKED_USERS_META_KEY, blockedIds } from './blocks.js';
import { loadShownListings, loadUser } from './catalog.js';
import { mysqlContext, rows, T, type Db, type MysqlContext, type WpDatabase } from './context.js';
import {
  conversationColumns,
  FAVOURITES_META_KEY,
  messageColumns,
  parseFavourites,
  toConversation,
  toMessage,
  type ConversationRow,
  type MessageRow,
} from './repositories.js';

const require = createRequire(import.meta.url);

/** A message as copied: the domain's, with the plugin's `meta` JSON text as stored (4.x), else null. */
export interface ExportedMessage extends Message {
  meta: string | null;
}

/**
 * Open conversations the plugin let exist twice or more for one buyer, seller and listing (its
 * table has no unique key; Souk allows one, D6): each group goes into its newest conversation.
 */
export interface DuplicateConversations {
  /** The older conversation's id to the id of the one that takes its messages. */
  mergedInto: Map<number, number>;
}

export interface WordpressSiteExport {
  /** Up to `limit` ids after `afterId`, ascending. */
  userIds(afterId: number, limit: number): Promise<number[]>;
  /** Users with their hashes as WordPress stores them (never printed). */
  users(ids: number[]): Promise<UserRecord[]>;
  listingIds(afterId: number, limit: number): Promise<number[]>;
  /** Listings with their details as the favourites list shows them now (badges as of now). */
  listings(ids: number[], now: number): Promise<ListingRecord[]>;
  /** Each user's favourites in the plugin's order (oldest addition first); a user without any is absent. */
  favourites(userIds: number[]): Promise<Map<number, number[]>>;
  /** Each user's block lists in the plugin's order; a user without any is absent. */
  blocks(userIds: number[]): Promise<Map<number, BlockLists>>;
  duplicateConversations(): Promise<DuplicateConversations>;
  conversations(afterId: number, limit: number): Promise<Conversation[]>;
  messages(afterId: number, limit: number): Promise<ExportedMessage[]>;
  close(): Promise<void>;
}

function mysqlDb(url: string, connectTimeoutMs: number): Db {
  const pool: Pool = (require('mysql2') as typeof import('mysql2')).createPool({
    uri: url,
    connectionLimit: 2,
    connectTimeout: connectTimeoutMs,
    charset: 'utf8mb4',
    dateStrings: true,
    supportBigNumbers: true,
  });
  return new Kysely<WpDatabase>({ dialect: new MysqlDialect({ pool }) });
}

const ids = (found: { ID: number | string }[]) => found.map((r) => Number(r.ID));

/** A listing as the catalog import writes it, from what the favourites list shows of it. */
async function listingRecords(db: Db, ctx: MysqlContext, listingIds: number[], now: number): Promise<ListingRecord[]> {
  const shown = await loadShownListings(db, ctx, listingIds, now);
  return shown.map(({ listing, details }) => ({
    id: listing.id,
    ownerId: listing.ownerId,
    title: listing.title,
    slug: listing.slug,
    status: listing.status,
    price: listing.price,
    images: JSON.parse(listing.media.images),
    category: JSON.parse(listing.media.category),
    location: JSON.parse(listing.media.location),
    details: {
      pricingType: details.pricingType,
      maxPrice: details.maxPrice,
      priceType: details.priceType,
      priceUnits: JSON.parse(details.json.priceUnits),
      priceUnit: details.priceUnit,
      adType: details.adType,
      tags: JSON.parse(details.json.tags),
      createdAt: details.createdAt,
      viewCount: details.viewCount,
      promotions: JSON.parse(details.json.promotions),
      badges: JSON.parse(details.json.badges),
      contact: JSON.parse(details.json.contact),
      store: details.store,
    },
  }));
}

/** url: mysql://user:password@host:port/database, the site's; prefix: its `$table_prefix`. */
export function openWordpressExport(url: string, opts: { tablePrefix: string; connectTimeoutMs: number }): WordpressSiteExport {
  const db = mysqlDb(url, opts.connectTimeoutMs);
  const ctx = mysqlContext(db, opts.tablePrefix);
  const { t } = ctx;
  return {
    async userIds(afterId, limit) {
      return ids(await rows(db, sql<{ ID: number }>`select ID from ${T(t.users)} where ID > ${afterId} order by ID limit ${limit}`));
    },
    async users(userIds) {
      const out: UserRecord[] = [];
      for (const id of userIds) {
        const found = await loadUser(db, ctx, { id });
        if (found) out.push({ ...found.user, ...(found.passwordHash ? { passwordHash: found.passwordHash } : {}) });
      }
      return out;
    },
    async listingIds(afterId, limit) {
      return ids(
        await rows(
          db,
          sql<{ ID: number }>`select ID from ${T(t.posts)} where post_type = 'rtcl_listing' and ID > ${afterId} order by ID limit ${limit}`,
        ),
      );
    },
    listings: (listingIds, now) => listingRecords(db, ctx, listingIds, now),
    async favourites(userIds) {
      const out = new Map<number, number[]>();
      if (userIds.length === 0) return out;
      const found = await rows(
        db,
        sql<{ user_id: number | string; meta_value: string | null }>`select user_id, meta_value from ${T(t.usermeta)}
          where meta_key = ${FAVOURITES_META_KEY} and user_id in (${sql.join(userIds)}) order by umeta_id`,
      );
      // The plugin reads the first row of a key (get_user_meta(..., true)), as the MySQL store does.
      for (const row of found) if (!out.has(Number(row.user_id))) out.set(Number(row.user_id), parseFavourites(row.meta_value));
      return out;
    },
    async blocks(userIds) {
      const out = new Map<number, BlockLists>();
      if (userIds.length === 0) return out;
      const found = await rows(
        db,
        sql<{ user_id: number | string; meta_key: string; meta_value: string | null }>`select user_id, meta_key, meta_value
          from ${T(t.usermeta)} where meta_key in (${BLOCKED_USERS_META_KEY}, ${BLOCKED_LISTINGS_META_KEY})
          and user_id in (${sql.join(userIds)}) order by umeta_id`,
      );
      const seen = new Set<string>();
      for (const row of found) {
        // The first row of each key, as the plugin reads it (get_user_meta(..., true)).
        const name = `${row.user_id}:${row.meta_key}`;
        if (seen.has(name)) continue;
        seen.add(name);
        const lists = out.get(Number(row.user_id)) ?? { users: [], listings: [] };
        lists[row.meta_key === BLOCKED_USERS_META_KEY ? 'users' : 'listings'] = blockedIds(row.meta_value);
        out.set(Number(row.user_id), lists);
      }
      return out;
    },
    async duplicateConversations() {
      const found = await rows(
        db,
        sql<{ con_id: number | string; keep: number | string }>`select c.con_id, d.keep from ${T(t.conversations)} c
          join (select listing_id, sender_id, recipient_id, max(con_id) as keep from ${T(t.conversations)}
            where sender_delete = 0 and recipient_delete = 0 group by listing_id, sender_id, recipient_id having count(*) > 1) d
          on d.listing_id = c.listing_id and d.sender_id = c.sender_id and d.recipient_id = c.recipient_id
          where c.sender_delete = 0 and c.recipient_delete = 0 and c.con_id <> d.keep`,
      );
      return { mergedInto: new Map(found.map((r) => [Number(r.con_id), Number(r.keep)])) };
    },
    async conversations(afterId, limit) {
      const form = await ctx.chat();
      const clock = (await ctx.site()).clock;
      const found = await rows(
        db,
        sql<ConversationRow>`select ${conversationColumns(ctx, form)} from ${T(t.conversations)} c
          where c.con_id > ${afterId} order by c.con_id limit ${limit}`,
      );
      return found.map((row) => toConversation(row, clock));
    },
    async messages(afterId, limit) {
      const form = await ctx.chat();
      const clock = (await ctx.site()).clock;
      const found = await rows(
        db,
        sql<MessageRow>`select ${messageColumns(form)}
          from ${T(t.messages)} m where m.message_id > ${afterId} order by m.message_id limit ${limit}`,
      );
      // The meta as stored: text, or the value mysql2 parsed from a column MariaDB marks JSON.
      const metaOf = (meta: unknown) =>
        meta === null || meta === undefined ? null : typeof meta === 'string' ? meta : JSON.stringify(meta);
      return found.map((row) => ({ ...toMessage(row, clock), meta: metaOf(row.meta) }));
    },
    close: () => db.destroy(),
  };
}
