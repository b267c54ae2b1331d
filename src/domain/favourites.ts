/** Favourites: toggle a listing in the caller's list (interface rules 1-2, D5), and list them (docs/routes.md). */
import type { ShownListing, User } from './model.js';
import type { FavouriteListRepository, Repositories, UnitOfWork } from './ports.js';

export type ToggleFavouriteResult = { ok: true; favouriteIds: number[] } | { ok: false; error: 'listing_not_found' };

export async function toggleFavourite(
  uow: UnitOfWork,
  userId: number,
  listingId: number,
  now: number = Date.now(),
): Promise<ToggleFavouriteResult> {
  const toggle = async (repos: Repositories): Promise<ToggleFavouriteResult> => {
    const favouriteIds = await repos.favourites.toggle(userId, listingId, now);
    if (!favouriteIds) return { ok: false, error: 'listing_not_found' };
    const type = favouriteIds.includes(listingId) ? 'favourite.added' : 'favourite.removed';
    await repos.events?.record(userId, { type, userId, listingId }, now);
    return { ok: true, favouriteIds };
  };
  // The caller as writer: one user's toggles run one at a time, so none is lost and no id is listed twice.
  // One statement, then only its event: a store may run it alone.
  return uow.alone ? uow.alone(FAVOURITE_EVENTS, toggle, userId) : uow.transaction(toggle, userId);
}

const FAVOURITE_EVENTS = ['favourite.added', 'favourite.removed'] as const;

export interface FavouriteListDeps {
  favourites: FavouriteListRepository;
  /** A user's profile (cached until the catalog changes): the listings' owners. */
  findUser: (id: number) => Promise<User | undefined>;
}

export interface FavouritesPage {
  items: { shown: ShownListing; owner: User }[];
  /** How many favourites are shown in all pages. */
  total: number;
  page: number;
  perPage: number;
}

/** A page shorter than asked for is the last one, unless it is empty past the first (then it says nothing). */
const endsTheList = (found: number, offset: number, perPage: number) => found < perPage && (found > 0 || offset === 0);

/** One page (from 1) of the user's favourites to show, with their listings' owners. */
export async function listFavourites(deps: FavouriteListDeps, userId: number, page: number, perPage: number): Promise<FavouritesPage> {
  const offset = (page - 1) * perPage;
  // Nobody has 2^53 favourites: a page that far is past the end without asking the database.
  const rows = Number.isSafeInteger(offset) ? await deps.favourites.shownPage(userId, offset, perPage) : [];
  // The usual list fits one page: its length is the count, and the count's query is saved.
  const total = endsTheList(rows.length, offset, perPage) ? offset + rows.length : await deps.favourites.countShown(userId);
  const items = await Promise.all(rows.map(async (shown) => ({ shown, owner: await ownerOf(deps, shown) })));
  return { items, total, page, perPage };
}

async function ownerOf(deps: FavouriteListDeps, shown: ShownListing): Promise<User> {
  const owner = await deps.findUser(shown.listing.ownerId);
  // listings.owner_id references users: a listing without its owner is a broken database, not a reply.
  if (!owner) throw new Error(`listing ${shown.listing.id}: its owner ${shown.listing.ownerId} does not exist`);
  return owner;
}
