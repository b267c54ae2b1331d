/**
 * privacy/listing/block (docs/safety.md): the listings the caller blocked, and blocking or
 * unblocking one. A blocked listing leaves the caller's favourites list, and the caller cannot
 * start a conversation about it. **Fixes:** blocking your own listing is refused; blocking twice
 * keeps one entry.
 */
import type { Listing } from '../../model.js';
import type { Repositories, UnitOfWork } from '../../ports.js';

export type BlockListingError = 'listing_not_found' | 'own_listing';
export type UnblockListingError = 'listing_not_found' | 'not_blocked';

export type BlockedListingsResult<E> = { ok: true; value: Listing[] } | { ok: false; error: E };

/** The listings `userId` blocked that still exist, in the order blocked. */
export async function listBlockedListings(repos: Repositories, userId: number): Promise<Listing[]> {
  const ids = await repos.blocks.blockedListingIds(userId);
  const listings = await Promise.all(ids.map((id) => repos.listings.findById(id)));
  return listings.filter((listing): listing is Listing => listing !== undefined);
}

/**
 * The listing when it exists and is not in the trash; one not published (pending, draft, expired)
 * only for its owner, who is then refused: to others it is as missing, so that the reply's list
 * gives no title the site does not show.
 */
async function findListing(repos: Repositories, listingId: number, userId: number): Promise<Listing | undefined> {
  const listing = await repos.listings.findById(listingId);
  if (!listing || listing.status === 'trash') return undefined;
  return listing.status === 'publish' || listing.ownerId === userId ? listing : undefined;
}

export async function blockListing(
  uow: UnitOfWork,
  userId: number,
  listingId: number,
  now: number = Date.now(),
): Promise<BlockedListingsResult<BlockListingError>> {
  return uow.transaction(async (repos): Promise<BlockedListingsResult<BlockListingError>> => {
    const listing = await findListing(repos, listingId, userId);
    if (!listing) return { ok: false, error: 'listing_not_found' };
    if (listing.ownerId === userId) return { ok: false, error: 'own_listing' };
    await repos.blocks.blockListing(userId, listingId, now);
    return { ok: true, value: await listBlockedListings(repos, userId) };
  }, userId);
}

export async function unblockListing(
  uow: UnitOfWork,
  userId: number,
  listingId: number,
): Promise<BlockedListingsResult<UnblockListingError>> {
  return uow.transaction(async (repos): Promise<BlockedListingsResult<UnblockListingError>> => {
    // Any listing still stored, the trash included: one blocked before it was trashed can leave the list.
    if (!(await repos.listings.findById(listingId))) return { ok: false, error: 'listing_not_found' };
    if (!(await repos.blocks.unblockListing(userId, listingId))) return { ok: false, error: 'not_blocked' };
    return { ok: true, value: await listBlockedListings(repos, userId) };
  }, userId);
}
