/**
 * Blocks on a WordPress site, where the plugin keeps them: the user meta `_rtcl_blocked_user_ids`
 * and `_rtcl_blocked_listing_ids`, PHP-serialised arrays of ids written as the plugin writes them
 * (`Functions::updateBlockedUserIds`): an addition takes the next key, a removal leaves the other
 * keys as they were (`a:2:{i:0;i:7;i:2;i:9;}`), an empty list deletes the meta. The site and Souk
 * read and write the same lists.
 */
import { sql, type CompiledQuery } from 'kysely';
import { unserialize } from 'php-serialize';
import type { BlockRepository } from '../../domain/ports.js';
import { statement, T, together, type Db, type MysqlContext } from './context.js';
import type { WriteScope } from './repositories.js';

export const BLOCKED_USERS_META_KEY = '_rtcl_blocked_user_ids';
export const BLOCKED_LISTINGS_META_KEY = '_rtcl_blocked_listing_ids';

/** A list as PHP holds it: its keys and ids, in order. */
export type BlockList = { key: number; id: number }[];

/** The entries of a blocked-ids meta value, in key order; anything unreadable is none (as the plugin's `is_array` check). */
export function parseBlockList(raw: string | null | undefined): BlockList {
  if (!raw) return [];
  let value: unknown;
  try {
    value = unserialize(raw, {}, { strict: false });
  } catch {
    return [];
  }
  if (!value || typeof value !== 'object') return [];
  const seen = new Set<number>();
  const list: BlockList = [];
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const id = Number(v);
    if (!Number.isSafeInteger(id) || id <= 0 || seen.has(id)) continue;
    seen.add(id);
    list.push({ key: Number(key), id });
  }
  return list;
}

export const blockedIds = (raw: string | null | undefined): number[] => parseBlockList(raw).map((e) => e.id);

/** PHP's serialize() of the list: integer keys and integer ids (the plugin's absint). */
export const serializeBlockList = (list: BlockList): string =>
  `a:${list.length}:{${list.map(({ key, id }) => `i:${key};i:${id};`).join('')}}`;

/** `$ids[] = $id`: the next key is one above the largest (0 for an empty list). */
export function withAdded(list: BlockList, id: number): BlockList {
  const next = list.reduce((max, e) => Math.max(max, e.key + 1), 0);
  return [...list, { key: next, id }];
}

type MetaRow = { user_id: number | string; meta_key: string; meta_value: string | null };

/** Users' block metas, oldest row first (get_user_meta reads the first). */
const metaOf = statement(
  (ctx, variant, a: number, b: number) =>
    sql<MetaRow>`select user_id, meta_key, meta_value from ${T(ctx.t.usermeta)}
      where user_id in (${a}, ${b}) and meta_key in (${BLOCKED_USERS_META_KEY}${variant === '' ? sql`` : sql`, ${BLOCKED_LISTINGS_META_KEY}`})
      order by umeta_id ${variant === 'lock' ? sql`for update` : sql``}`,
);

const lockUsers = statement(
  (ctx, _variant, low: number, high: number) => sql`select ID from ${T(ctx.t.users)} where ID in (${low}, ${high}) order by ID for update`,
);
const insertMeta = statement(
  (ctx, _variant, userId: number, key: string, value: string) =>
    sql`insert into ${T(ctx.t.usermeta)} (user_id, meta_key, meta_value) values (${userId}, ${key}, ${value})`,
);
const updateMeta = statement(
  (ctx, _variant, userId: number, key: string, value: string) =>
    sql`update ${T(ctx.t.usermeta)} set meta_value = ${value} where user_id = ${userId} and meta_key = ${key}`,
);
const deleteMeta = statement(
  (ctx, _variant, userId: number, key: string) => sql`delete from ${T(ctx.t.usermeta)} where user_id = ${userId} and meta_key = ${key}`,
);

/** A conversation's two participants' blocked users, read with the conversation (BlockPrefetch). */
const participantMetas = statement(
  (ctx, _variant, conId: number) =>
    sql<MetaRow>`select m.user_id, m.meta_key, m.meta_value from ${T(ctx.t.conversations)} c
      join ${T(ctx.t.usermeta)} m on m.user_id in (c.sender_id, c.recipient_id) and m.meta_key = ${BLOCKED_USERS_META_KEY}
      where c.con_id = ${conId} order by m.umeta_id`,
);

/**
 * Block metas read in the round trip of a statement the unit of work sends anyway, after the
 * writer's lock, and kept for the check that follows it (repositories.ts): a send reads its
 * conversation with both participants' lists; a start's check reads the open conversation its
 * next step looks for. A user without blocks then costs the chat no round trip more.
 */
export interface BlockPrefetch {
  /** A conversation's two participants' lists, read with it (findById). */
  pair?: { a: number; b: number; values: Map<string, string | null> };
  /** The open conversation read with a start's check, for the findOpen that follows. */
  open?: { key: string; rows: unknown[] };
  /** The start's next statement (findOpen's), to send with its check. */
  openQuery?: (listingId: number, senderId: number, recipientId: number) => Promise<CompiledQuery>;
}

export const openKey = (listingId: number, senderId: number, recipientId: number) => `${listingId}:${senderId}:${recipientId}`;

/** The participants' lists of the conversation, to send with its read (together). */
export const participantMetasQuery = (ctx: MysqlContext, conId: number) => participantMetas.compiled(ctx, '', conId);

/** What participantMetasQuery read, for BlockPrefetch.pair. */
export const pairOf = (a: number, b: number, rows: unknown[]) => ({ a, b, values: firstValues(rows as MetaRow[]) });

/** The first value of each (user, key), as get_user_meta(..., true) reads it. */
function firstValues(found: MetaRow[]): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const row of found) {
    const name = `${Number(row.user_id)}:${row.meta_key}`;
    if (!out.has(name)) out.set(name, row.meta_value);
  }
  return out;
}

const valueOf = (values: Map<string, string | null>, userId: number, key: string) => values.get(`${userId}:${key}`);

/**
 * The blocks over the site's user meta. In a unit of work (`scope`), every read runs in its
 * transaction after the writer's lock: a block answered before the lock was granted is seen.
 */
export function mysqlBlockRepository(db: Db, ctx: MysqlContext, scope?: WriteScope, prefetch: BlockPrefetch = {}): BlockRepository {
  const enter = scope ? () => scope.enter() : () => Promise.resolve();
  const eitherWay = (values: Map<string, string | null>, a: number, b: number) =>
    blockedIds(valueOf(values, a, BLOCKED_USERS_META_KEY)).includes(b) ||
    blockedIds(valueOf(values, b, BLOCKED_USERS_META_KEY)).includes(a);
  const read = async (a: number, b: number, variant: '' | 'listings' | 'lock') => {
    await enter();
    return firstValues((await metaOf(db, ctx, variant, a, b)).rows);
  };
  /** Writes the list as update_user_meta and delete_user_meta do. */
  const write = async (userId: number, key: string, existed: boolean, list: BlockList) => {
    if (list.length === 0) await deleteMeta(db, ctx, '', userId, key);
    else if (existed) await updateMeta(db, ctx, '', userId, key, serializeBlockList(list));
    else await insertMeta(db, ctx, '', userId, key, serializeBlockList(list));
  };
  /** Read under lock, changed by `change` (undefined: unchanged), written back. */
  const change = async (userId: number, key: string, edit: (list: BlockList) => BlockList | undefined): Promise<boolean> => {
    const raw = valueOf(await read(userId, userId, 'lock'), userId, key);
    const after = edit(parseBlockList(raw));
    if (after === undefined) return false;
    await write(userId, key, raw !== undefined, after);
    return true;
  };
  return {
    async between(a, b) {
      const pair = prefetch.pair;
      if (pair && ((pair.a === a && pair.b === b) || (pair.a === b && pair.b === a))) return eitherWay(pair.values, a, b);
      return eitherWay(await read(a, b, ''), a, b);
    },
    async barsStart(userId, ownerId, listingId) {
      await enter();
      const next = prefetch.openQuery ? await prefetch.openQuery(listingId, userId, ownerId) : undefined;
      const [metas, open] = await together(db, ctx, [metaOf.compiled(ctx, 'listings', userId, ownerId), ...(next ? [next] : [])]);
      if (open) prefetch.open = { key: openKey(listingId, userId, ownerId), rows: open.rows };
      const values = firstValues(metas!.rows as MetaRow[]);
      return (
        blockedIds(valueOf(values, userId, BLOCKED_LISTINGS_META_KEY)).includes(listingId) ||
        blockedIds(valueOf(values, userId, BLOCKED_USERS_META_KEY)).includes(ownerId) ||
        blockedIds(valueOf(values, ownerId, BLOCKED_USERS_META_KEY)).includes(userId)
      );
    },
    async blockedUserIds(blockerId) {
      return blockedIds(valueOf(await read(blockerId, blockerId, ''), blockerId, BLOCKED_USERS_META_KEY));
    },
    async blockedListingIds(userId) {
      return blockedIds(valueOf(await read(userId, userId, 'listings'), userId, BLOCKED_LISTINGS_META_KEY));
    },
    async blockUser(blockerId, blockedId) {
      await enter();
      // Both users' rows, as their units of work lock them (the writer's lock), in id order.
      await lockUsers(db, ctx, '', Math.min(blockerId, blockedId), Math.max(blockerId, blockedId));
      await change(blockerId, BLOCKED_USERS_META_KEY, (list) =>
        list.some((e) => e.id === blockedId) ? undefined : withAdded(list, blockedId),
      );
    },
    async unblockUser(blockerId, blockedId) {
      await enter();
      await lockUsers(db, ctx, '', Math.min(blockerId, blockedId), Math.max(blockerId, blockedId));
      return change(blockerId, BLOCKED_USERS_META_KEY, (list) =>
        list.some((e) => e.id === blockedId) ? list.filter((e) => e.id !== blockedId) : undefined,
      );
    },
    async blockListing(userId, listingId) {
      await change(userId, BLOCKED_LISTINGS_META_KEY, (list) =>
        list.some((e) => e.id === listingId) ? undefined : withAdded(list, listingId),
      );
    },
    async unblockListing(userId, listingId) {
      return change(userId, BLOCKED_LISTINGS_META_KEY, (list) =>
        list.some((e) => e.id === listingId) ? list.filter((e) => e.id !== listingId) : undefined,
      );
    },
  };
}

/** The user's blocked users' meta, to send with another statement (together). */
export const blockedUsersQuery = (ctx: MysqlContext, userId: number) => metaOf.compiled(ctx, '', userId, userId);

/** The user's blocked users and listings, from what blockedUsersQuery or blockMetasQuery read. */
export function blocksOfRows(rows: unknown[], userId: number): { users: number[]; listings: number[] } {
  const values = firstValues(rows as MetaRow[]);
  return {
    users: blockedIds(valueOf(values, userId, BLOCKED_USERS_META_KEY)),
    listings: blockedIds(valueOf(values, userId, BLOCKED_LISTINGS_META_KEY)),
  };
}

/** Both of the user's block metas, to send with another statement (together). */
export const blockMetasQuery = (ctx: MysqlContext, userId: number) => metaOf.compiled(ctx, 'listings', userId, userId);

/** Of these listings, the published ones, with their authors: the favourites list of a user who blocked users. */
export async function publishedWithAuthors(db: Db, ctx: MysqlContext, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const [found] = await together(db, ctx, [
    sql<{ ID: number | string; post_author: number | string }>`select ID, post_author from ${T(ctx.t.posts)}
      where ID in (${sql.join(ids)}) and post_type = 'rtcl_listing' and post_status = 'publish'`.compile(db),
  ]);
  return new Map(
    (found!.rows as { ID: number | string; post_author: number | string }[]).map((r) => [Number(r.ID), Number(r.post_author)]),
  );
}
