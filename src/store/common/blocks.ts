/**
 * Blocks on Souk's own databases (migration 017): the BlockRepository over a query runner, and
 * the conditions the chat list and the favourites list add to their statements, so that a list
 * costs no statement more for them.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { BlockRepository } from '../../domain/ports.js';
import { prepare, rawQuery, type QueryRunner } from './prepared.js';

/**
 * What the unit of work learnt with its writer's lock (postgres/transaction.ts): whether the writer
 * is party to any block (`users.blocks`, migration 017, read by the locking statement itself: a
 * block that held the lock has updated the row the lock returns). When they are not, no block
 * stands between them and anyone, and the checks need no statement.
 */
export interface WriterBlocks {
  writer: number;
  /** Undefined until the lock has been taken (with the transaction's first statement): the checks run. */
  party: boolean | undefined;
}

/** A block of `blocker` on `blocked`: one lookup in the pair's unique index. */
const blockOf = (db: QueryRunner['db'], blocker: number, blocked: number) =>
  db.selectFrom('user_blocks').select('id').where('blocker_id', '=', blocker).where('blocked_id', '=', blocked);

// Each way a lookup of its own, joined by UNION ALL: an OR of the two makes SQLite build a row set
// for its multi-index OR, some fifteen times the cost of the two lookups, on an empty table too.
const q = {
  between: prepare((db, a: number, b: number) => blockOf(db, a, b).unionAll(blockOf(db, b, a))),
  barsStart: prepare((db, userId: number, ownerId: number, listingId: number) =>
    blockOf(db, userId, ownerId)
      .unionAll(blockOf(db, ownerId, userId))
      .unionAll(db.selectFrom('listing_blocks').select('id').where('user_id', '=', userId).where('listing_id', '=', listingId)),
  ),
  blockedUserIds: prepare((db, blockerId: number) =>
    db.selectFrom('user_blocks').select('blocked_id').where('blocker_id', '=', blockerId).orderBy('id'),
  ),
  blockedListingIds: prepare((db, userId: number) =>
    db.selectFrom('listing_blocks').select('listing_id').where('user_id', '=', userId).orderBy('id'),
  ),
  addUser: prepare((db, blockerId: number, blockedId: number, at: number) =>
    db
      .insertInto('user_blocks')
      .values({ blocker_id: blockerId, blocked_id: blockedId, created_at: at })
      .onConflict((oc) => oc.columns(['blocker_id', 'blocked_id']).doNothing()),
  ),
  removeUser: prepare((db, blockerId: number, blockedId: number) =>
    db.deleteFrom('user_blocks').where('blocker_id', '=', blockerId).where('blocked_id', '=', blockedId),
  ),
  addListing: prepare((db, userId: number, listingId: number, at: number) =>
    db
      .insertInto('listing_blocks')
      .values({ user_id: userId, listing_id: listingId, created_at: at })
      .onConflict((oc) => oc.columns(['user_id', 'listing_id']).doNothing()),
  ),
  removeListing: prepare((db, userId: number, listingId: number) =>
    db.deleteFrom('listing_blocks').where('user_id', '=', userId).where('listing_id', '=', listingId),
  ),
};

/**
 * `users.blocks` of the users, moved by `by` (a block added: 1, removed: -1). It may count too many
 * (a removed listing's blocks leave without it), which costs that user the check; never too few.
 */
const countBlocks = prepare((db, low: number, high: number, by: number) =>
  rawQuery(db, sql`update users set blocks = blocks + ${by} where id in (${low}, ${high})`),
);

export interface BlockStoreOptions {
  /**
   * Takes both users' write locks, in id order (PostgreSQL: FOR NO KEY UPDATE of their rows, the
   * writer's lock of their sends). Absent where every write transaction holds the one write lock (SQLite).
   */
  lockUsers?: (run: QueryRunner, ids: [number, number]) => Promise<void>;
  /** Known with the writer's lock: see WriterBlocks. */
  writer?: WriterBlocks;
}

const affected = (result: { numAffectedRows?: bigint }) => Number(result.numAffectedRows ?? 0) > 0;

export function blockRepository(run: QueryRunner, options: BlockStoreOptions = {}): BlockRepository {
  const known = options.writer;
  /** True when the writer is one of `ids` and party to no block: no statement needed. */
  const clear = (...ids: number[]) => known?.party === false && ids.includes(known.writer);
  /** A block this unit of work writes makes its writer a party. */
  const becameParty = () => {
    if (known) known.party = true;
  };
  return {
    async between(a, b) {
      if (clear(a, b)) return false;
      return (await q.between(run, a, b)).rows.length > 0;
    },
    async barsStart(userId, ownerId, listingId) {
      // The caller's listing blocks are theirs: a caller party to no block has none.
      if (clear(userId)) return false;
      return (await q.barsStart(run, userId, ownerId, listingId)).rows.length > 0;
    },
    async blockedUserIds(blockerId) {
      return (await q.blockedUserIds(run, blockerId)).rows.map((r) => Number(r.blocked_id));
    },
    async blockedListingIds(userId) {
      return (await q.blockedListingIds(run, userId)).rows.map((r) => Number(r.listing_id));
    },
    async blockUser(blockerId, blockedId, at) {
      const [low, high] = blockerId < blockedId ? [blockerId, blockedId] : [blockedId, blockerId];
      await options.lockUsers?.(run, [low, high]);
      becameParty();
      if (affected(await q.addUser(run, blockerId, blockedId, at))) await countBlocks(run, low, high, 1);
    },
    async unblockUser(blockerId, blockedId) {
      const [low, high] = blockerId < blockedId ? [blockerId, blockedId] : [blockedId, blockerId];
      await options.lockUsers?.(run, [low, high]);
      if (!affected(await q.removeUser(run, blockerId, blockedId))) return false;
      await countBlocks(run, low, high, -1);
      return true;
    },
    async blockListing(userId, listingId, at) {
      becameParty();
      if (affected(await q.addListing(run, userId, listingId, at))) await countBlocks(run, userId, userId, 1);
    },
    async unblockListing(userId, listingId) {
      if (!affected(await q.removeListing(run, userId, listingId))) return false;
      await countBlocks(run, userId, userId, -1);
      return true;
    },
  };
}

/**
 * The chat list's condition (GET my/chat): not a conversation whose other participant `userId`
 * blocked. Conversations with a user who blocked `userId` stay in their list.
 */
export const otherNotBlockedBy = (userId: number): RawBuilder<SqlBool> =>
  sql<SqlBool>`(${partyToNoBlock(userId)} or not exists (select 1 from user_blocks ub where ub.blocker_id = ${userId}
    and ub.blocked_id = case when c.sender_id = ${userId} then c.recipient_id else c.sender_id end))`;

/**
 * The favourites list's condition (GET my/favourites): neither a listing `userId` blocked nor one of a
 * user they blocked. For a user party to a block, each favourite's listing is read by its key for
 * its owner (a scalar subquery: as a join PostgreSQL hashed every listing of the blocked users,
 * a scan of all listings).
 */
export const favouriteNotBlockedBy = (userId: number): RawBuilder<SqlBool> =>
  sql<SqlBool>`(${partyToNoBlock(userId)} or (not exists (select 1 from listing_blocks lb where lb.user_id = ${userId} and lb.listing_id = favourites.listing_id)
    and not exists (select 1 from user_blocks ub where ub.blocker_id = ${userId}
      and ub.blocked_id = (select bl.owner_id from listings bl where bl.id = favourites.listing_id))))`;

/**
 * True when `users.blocks` says the user is party to no block (it never counts too few): the lists'
 * per-row block lookups are then skipped, which a user with a thousand rows would pay on every page.
 * Uncorrelated, so the database reads it once per statement.
 */
const partyToNoBlock = (userId: number) => sql`(select bu.blocks from users bu where bu.id = ${userId}) = 0`;
