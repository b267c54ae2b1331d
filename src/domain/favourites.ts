/** Favourites: toggle a listing in the caller's list (interface rules 1-2, D5). */
import type { UnitOfWork } from './ports.js';

export type ToggleFavouriteResult = { ok: true; favouriteIds: number[] } | { ok: false; error: 'listing_not_found' };

export async function toggleFavourite(
  uow: UnitOfWork,
  userId: number,
  listingId: number,
  now: number = Date.now(),
): Promise<ToggleFavouriteResult> {
  // The caller as writer: one user's toggles run one at a time, so none is lost and no id is listed twice.
  return uow.transaction(async (repos) => {
    const status = await repos.listings.statusOf(listingId);
    if (status === undefined || status === 'trash') return { ok: false, error: 'listing_not_found' } as const;
    return { ok: true, favouriteIds: await repos.favourites.toggle(userId, listingId, now) } as const;
  }, userId);
}
