/**
 * A copied site's block lists (the plugin's `_rtcl_blocked_user_ids` and `_rtcl_blocked_listing_ids`)
 * as Souk's own rows (migration 017), for `souk import --from-wordpress`: a user's lists are written
 * only when they differ from what is stored, in the plugin's order, and the `users.blocks` count of
 * everyone whose blocks changed is counted again, since the writer's lock skips the checks of a
 * user at 0 (blocks.ts).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** A user's block lists: the users and the listings they blocked, in the order they blocked them. */
export interface BlockLists {
  users: number[];
  listings: number[];
}

type Db = Kysely<Database>;

const sameList = (a: number[], b: number[]) => a.length === b.length && a.every((id, i) => id === b[i]);

/** Which of `ids` are rows of `table`. */
async function stored(trx: Db, table: 'users' | 'listings', ids: number[]): Promise<Set<number>> {
  const found = new Set<number>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    for (const r of await trx.selectFrom(table).select('id').where('id', 'in', chunk).execute()) found.add(Number(r.id));
  }
  return found;
}

/** The block lists stored for `userIds`, in blocking order. */
async function storedLists(trx: Db, userIds: number[]): Promise<Map<number, BlockLists>> {
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
 * Writes each user's whole lists (a user absent from `lists` keeps none); entries naming a user or
 * a listing that is not stored, or the user themselves, are left out. Returns how many users' lists
 * it wrote.
 */
export async function writeBlockLists(trx: Db, userIds: number[], lists: Map<number, BlockLists>, now: number): Promise<number> {
  if (userIds.length === 0) return 0;
  const named = [...lists.values()];
  const knownUsers = await stored(trx, 'users', [...new Set(named.flatMap((l) => l.users))]);
  const knownListings = await stored(trx, 'listings', [...new Set(named.flatMap((l) => l.listings))]);
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
