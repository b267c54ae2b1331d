/**
 * Writes a copied site (`souk import --from-wordpress`) into Souk's own database, keeping every
 * id: users with their password hashes, listings with their details, favourites, block lists,
 * conversations and messages. Each batch is one transaction and writes only the rows that differ
 * from what is stored, so running the copy again changes nothing, and a copy cut short is finished
 * by running it again (each batch is whole or absent).
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Conversation, ListingRecord, Message, UserRecord } from '../../domain/model.js';
import { CATALOG_VERSION } from '../../domain/ports.js';
import { storedDigestsOf } from '../../domain/files/references.js';
import { listingDetailsRow } from './catalog.js';
import { imagesJson, termsJson } from './media-json.js';
import { CONVERSATION_COLUMNS, LISTING_COLUMNS, LISTING_DETAIL_COLUMNS, MESSAGE_COLUMNS, USER_COLUMNS, type Database } from './schema.js';
import { settingsRepository } from './settings.js';

export interface CopiedMessage extends Message {
  meta: string | null;
}

type Row = Record<string, unknown>;

/** Whether `stored` already holds every value of `wanted` (numbers compared as numbers: PostgreSQL's bigint may read as text). */
function same(stored: Row | undefined, wanted: Row): boolean {
  if (!stored) return false;
  return Object.entries(wanted).every(([key, value]) => {
    const have = stored[key];
    if (typeof value === 'number' && have !== null && have !== undefined) return Number(have) === value;
    return have === value;
  });
}

/** U+0000 cannot be stored in PostgreSQL text, and Souk refuses it everywhere (docs/souk-decisions.md). */
const clean = (text: string) => text.replaceAll('\u0000', '');

function userRow(u: UserRecord) {
  return {
    login: clean(u.login),
    name: clean(u.name),
    email: clean(u.email),
    phone: clean(u.phone),
    whatsapp: clean(u.whatsapp),
    website: clean(u.website),
    profile_picture: clean(u.profilePicture),
    disabled: u.disabled ? 1 : 0,
    first_name: clean(u.firstName),
    last_name: clean(u.lastName),
    description: clean(u.description),
    is_admin: u.isAdmin ? 1 : 0,
    address: clean(u.address),
    zipcode: clean(u.zipcode),
    latitude: clean(u.latitude),
    longitude: clean(u.longitude),
    locations: clean(termsJson(u.locations)),
    registered_at: u.registeredAt,
  };
}

function listingRow(l: ListingRecord) {
  return {
    owner_id: l.ownerId,
    title: clean(l.title),
    slug: clean(l.slug),
    status: l.status,
    price: clean(l.price),
    images: clean(imagesJson(l.images)),
    category: clean(termsJson(l.category)),
    location: clean(termsJson(l.location)),
  };
}

function conversationRow(c: Conversation) {
  return {
    listing_id: c.listingId,
    sender_id: c.senderId,
    recipient_id: c.recipientId,
    sender_delete: c.senderDelete ? 1 : 0,
    recipient_delete: c.recipientDelete ? 1 : 0,
    sender_review: c.senderReview ? 1 : 0,
    recipient_review: c.recipientReview ? 1 : 0,
    invert_review: c.invertReview ? 1 : 0,
    last_message_id: c.lastMessageId,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

function messageRow(m: CopiedMessage) {
  return {
    con_id: m.conId,
    source_id: m.sourceId,
    message: clean(m.text),
    type: m.type,
    attachments: m.attachments === null ? null : clean(JSON.stringify(m.attachments)),
    meta: m.meta === null ? null : clean(m.meta),
    is_read: m.isRead ? 1 : 0,
    temp_id: m.tempId,
    created_at: m.createdAt,
  };
}

const byId = <R extends { id: number | string }>(found: R[]) => new Map(found.map((r) => [Number(r.id), r as unknown as Row]));

/** Which of `ids` are rows of `table`, asked 500 at a time. */
async function storedIds(db: Kysely<Database>, table: 'users' | 'listings' | 'conversations', ids: number[]): Promise<Set<number>> {
  const found = new Set<number>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    for (const r of await db.selectFrom(table).select('id').where('id', 'in', chunk).execute()) found.add(Number(r.id));
  }
  return found;
}

/** A user's block lists: the users and the listings they blocked, in the order they blocked them. */
export interface BlockLists {
  users: number[];
  listings: number[];
}

const sameList = (a: number[], b: number[]) => a.length === b.length && a.every((id, i) => id === b[i]);

/** The block lists stored for `userIds`, in blocking order. */
async function storedLists(trx: Kysely<Database>, userIds: number[]): Promise<Map<number, BlockLists>> {
  const out = new Map(userIds.map((id) => [id, { users: [] as number[], listings: [] as number[] }]));
  const users = await trx
    .selectFrom('user_blocks')
    .select(['blocker_id', 'blocked_id'])
    .where('blocker_id', 'in', userIds)
    .orderBy('id')
    .execute();
  for (const r of users) out.get(Number(r.blocker_id))!.users.push(Number(r.blocked_id));
  const listings = await trx
    .selectFrom('listing_blocks')
    .select(['user_id', 'listing_id'])
    .where('user_id', 'in', userIds)
    .orderBy('id')
    .execute();
  for (const r of listings) out.get(Number(r.user_id))!.listings.push(Number(r.listing_id));
  return out;
}

/**
 * Writes each user's whole block lists (a user absent from `lists` keeps none); entries naming a
 * user or a listing that is not stored, or the user themselves, are left out. The `users.blocks`
 * count (migration 017) of everyone whose blocks changed is counted again: the writer's lock skips
 * the checks of a user at 0 (blocks.ts). Returns how many users' lists it wrote.
 */
async function writeBlockLists(trx: Kysely<Database>, userIds: number[], lists: Map<number, BlockLists>, now: number): Promise<number> {
  const named = [...lists.values()];
  const knownUsers = await storedIds(trx, 'users', [...new Set(named.flatMap((l) => l.users))]);
  const knownListings = await storedIds(trx, 'listings', [...new Set(named.flatMap((l) => l.listings))]);
  const have = await storedLists(trx, userIds);
  const recount = new Set<number>();
  let written = 0;
  for (const userId of userIds) {
    const wanted = lists.get(userId) ?? { users: [], listings: [] };
    const users = wanted.users.filter((id) => id !== userId && knownUsers.has(id));
    const listings = wanted.listings.filter((id) => knownListings.has(id));
    const old = have.get(userId)!;
    if (sameList(old.users, users) && sameList(old.listings, listings)) continue;
    await trx.deleteFrom('user_blocks').where('blocker_id', '=', userId).execute();
    await trx.deleteFrom('listing_blocks').where('user_id', '=', userId).execute();
    // The site keeps no dates: all are dated now, their ids keeping the plugin's order.
    for (const blocked of users)
      await trx.insertInto('user_blocks').values({ blocker_id: userId, blocked_id: blocked, created_at: now }).execute();
    for (const listing of listings)
      await trx.insertInto('listing_blocks').values({ user_id: userId, listing_id: listing, created_at: now }).execute();
    for (const id of [userId, ...old.users, ...users]) recount.add(id);
    written++;
  }
  if (recount.size > 0) {
    await sql`update users set blocks =
        (select count(*) from user_blocks b where b.blocker_id = users.id or b.blocked_id = users.id)
        + (select count(*) from listing_blocks l where l.user_id = users.id)
      where id in (${sql.join([...recount])})`.execute(trx);
  }
  return written;
}

export interface SiteImportWriter {
  /** Each returns how many rows it wrote (new or changed). */
  users(users: UserRecord[]): Promise<number>;
  listings(listings: ListingRecord[]): Promise<number>;
  /** Each user's whole list, oldest addition first; a user absent from the map keeps none. */
  favourites(userIds: number[], lists: Map<number, number[]>): Promise<number>;
  /** Each user's whole block lists, as favourites (writeBlockLists). */
  blocks(userIds: number[], lists: Map<number, BlockLists>): Promise<number>;
  conversations(conversations: Conversation[]): Promise<number>;
  messages(messages: CopiedMessage[]): Promise<number>;
  /** Which of these ids are stored (users, listings or conversations), for checking references. */
  existing(table: 'users' | 'listings' | 'conversations', ids: number[]): Promise<Set<number>>;
  /**
   * After the copy: PostgreSQL's id sequences moved past the copied ids, and, when users or
   * listings changed, the catalog marker, so running servers drop their cached copies.
   */
  finish(catalogChanged: boolean): Promise<void>;
}

export function siteImportWriter(db: Kysely<Database>, dialect: 'sqlite' | 'postgres', now = Date.now()): SiteImportWriter {
  return {
    existing: (table, ids) => storedIds(db, table, ids),

    async users(users) {
      if (users.length === 0) return 0;
      return db.transaction().execute(async (trx) => {
        const ids = users.map((u) => u.id);
        const stored = byId(await trx.selectFrom('users').select(USER_COLUMNS).where('id', 'in', ids).execute());
        const hashes = new Map(
          (await trx.selectFrom('user_credentials').select(['user_id', 'password_hash']).where('user_id', 'in', ids).execute()).map((r) => [
            Number(r.user_id),
            r.password_hash,
          ]),
        );
        let written = 0;
        for (const u of users) {
          const row = userRow(u);
          if (!same(stored.get(u.id), row)) {
            await trx
              .insertInto('users')
              .values({ id: u.id, ...row })
              .onConflict((oc) => oc.column('id').doUpdateSet(row))
              .execute();
            written++;
          }
          if (u.passwordHash !== undefined && hashes.get(u.id) !== u.passwordHash) {
            await trx
              .insertInto('user_credentials')
              .values({ user_id: u.id, password_hash: u.passwordHash })
              .onConflict((oc) => oc.column('user_id').doUpdateSet({ password_hash: u.passwordHash! }))
              .execute();
            written += same(stored.get(u.id), row) ? 1 : 0;
          }
        }
        return written;
      });
    },

    async listings(listings) {
      if (listings.length === 0) return 0;
      return db.transaction().execute(async (trx) => {
        const ids = listings.map((l) => l.id);
        const stored = byId(await trx.selectFrom('listings').select(LISTING_COLUMNS).where('id', 'in', ids).execute());
        const details = new Map(
          (await trx.selectFrom('listing_details').select(LISTING_DETAIL_COLUMNS).where('listing_id', 'in', ids).execute()).map((r) => [
            Number(r.listing_id),
            r as unknown as Row,
          ]),
        );
        let written = 0;
        for (const l of listings) {
          const row = listingRow(l);
          const detailRow = { ...listingDetailsRow(l.details), created_at: l.details.createdAt ?? now };
          const listingSame = same(stored.get(l.id), row);
          if (!listingSame) {
            const updated = { ...row, updated_at: now };
            await trx
              .insertInto('listings')
              .values({ id: l.id, ...updated })
              .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({ ...updated, version: eb('listings.version', '+', 1) })))
              .execute();
          }
          const detailsSame = same(details.get(l.id), detailRow);
          if (!detailsSame) {
            await trx
              .insertInto('listing_details')
              .values({ listing_id: l.id, ...detailRow })
              .onConflict((oc) => oc.column('listing_id').doUpdateSet(detailRow))
              .execute();
          }
          if (!listingSame || !detailsSame) written++;
        }
        return written;
      });
    },

    async favourites(userIds, lists) {
      if (userIds.length === 0) return 0;
      return db.transaction().execute(async (trx) => {
        const stored = new Map<number, number[]>();
        const found = await trx
          .selectFrom('favourites')
          .select(['user_id', 'listing_id'])
          .where('user_id', 'in', userIds)
          .orderBy('id')
          .execute();
        for (const r of found) stored.set(Number(r.user_id), [...(stored.get(Number(r.user_id)) ?? []), Number(r.listing_id)]);
        const wantedListings = [...new Set([...lists.values()].flat())];
        const known = await storedIds(trx, 'listings', wantedListings);
        let written = 0;
        for (const userId of userIds) {
          // Favourites of listings that were not copied (deleted posts) are left out.
          const wanted = (lists.get(userId) ?? []).filter((id) => known.has(id));
          const have = stored.get(userId) ?? [];
          if (sameList(have, wanted)) continue;
          await trx.deleteFrom('favourites').where('user_id', '=', userId).execute();
          // In the plugin's order: the ids keep it (oldest addition first); the site keeps no dates, so all are dated now.
          for (const listingId of wanted) {
            await trx.insertInto('favourites').values({ user_id: userId, listing_id: listingId, added_at: now }).execute();
          }
          written++;
        }
        return written;
      });
    },

    async blocks(userIds, lists) {
      if (userIds.length === 0) return 0;
      return db.transaction().execute((trx) => writeBlockLists(trx, userIds, lists, now));
    },

    async conversations(conversations) {
      if (conversations.length === 0) return 0;
      return db.transaction().execute(async (trx) => {
        const stored = byId(
          await trx
            .selectFrom('conversations')
            .select(CONVERSATION_COLUMNS)
            .where(
              'id',
              'in',
              conversations.map((c) => c.id),
            )
            .execute(),
        );
        let written = 0;
        for (const c of conversations) {
          const row = conversationRow(c);
          if (same(stored.get(c.id), row)) continue;
          await trx
            .insertInto('conversations')
            .values({ id: c.id, ...row })
            .onConflict((oc) => oc.column('id').doUpdateSet(row))
            .execute();
          written++;
        }
        return written;
      });
    },

    async messages(messages) {
      if (messages.length === 0) return 0;
      return db.transaction().execute(async (trx) => {
        const stored = byId(
          await trx
            .selectFrom('messages')
            .select(MESSAGE_COLUMNS)
            .where(
              'id',
              'in',
              messages.map((m) => m.id),
            )
            .execute(),
        );
        let written = 0;
        for (const m of messages) {
          const row = messageRow(m);
          if (same(stored.get(m.id), row)) continue;
          await trx
            .insertInto('messages')
            .values({ id: m.id, ...row })
            .onConflict((oc) => oc.column('id').doUpdateSet(row))
            .execute();
          await trx.deleteFrom('message_files').where('message_id', '=', m.id).execute();
          const digests = storedDigestsOf(m.attachments);
          if (digests.length > 0)
            await trx
              .insertInto('message_files')
              .values(digests.map((digest) => ({ message_id: m.id, digest })))
              .execute();
          written++;
        }
        return written;
      });
    },

    async finish(catalogChanged) {
      if (dialect === 'postgres') {
        // Ids were given, not drawn: the next drawn id must come after every copied one.
        // Never moved back: ids drawn before (and since deleted) are not drawn again.
        for (const table of ['conversations', 'messages', 'favourites'] as const) {
          const seq = (await sql<{ seq: string }>`select pg_get_serial_sequence(${table}, 'id') as seq`.execute(db)).rows[0]?.seq;
          if (!seq) continue;
          await sql`select setval(${seq}::regclass, greatest(coalesce((select max(id) from ${sql.table(table)}), 1),
            (select last_value from ${sql.raw(seq)})))`.execute(db);
        }
      }
      if (catalogChanged) await settingsRepository(db).set(CATALOG_VERSION, randomUUID());
    },
  };
}
