/** The favourites list's reads (GET my/favourites): shown favourites with their listings' details. */
import type { Kysely, Selectable } from 'kysely';
import { DEFAULT_LISTING_DETAILS, type ListingStore, type PricingType, type ShownListing } from '../../domain/model.js';
import type { FavouriteListRepository } from '../../domain/ports.js';
import { listingDetailsRow } from './catalog.js';
import { favouriteNotBlockedBy } from './blocks.js';
import { prepare, type QueryRunner } from './prepared.js';
import { toListing } from './rows.js';
import { LISTING_COLUMNS, LISTING_DETAIL_COLUMNS, type Database, type ListingDetailsTable, type ListingsTable } from './schema.js';

/** The details' columns but the key, which the listing's id already gives. */
const DETAIL_COLUMNS = LISTING_DETAIL_COLUMNS.filter((c): c is Exclude<typeof c, 'listing_id'> => c !== 'listing_id');

type DetailsRow = Omit<Selectable<ListingDetailsTable>, 'listing_id'>;
type ShownRow = Selectable<ListingsTable> & { [K in keyof DetailsRow]: DetailsRow[K] | null };

/** What a listing imported before its details existed (migration 009) shows: the import's defaults. */
const NO_DETAILS = listingDetailsRow(DEFAULT_LISTING_DETAILS);

type Db = Kysely<Database>;

/**
 * The favourites the list shows: the user's, whose listing is published and not blocked by them
 * (docs/safety.md). Whether the listing is published is kept on the favourite (migration 036), so
 * that the user's shown favourites are one range of favourites_by_user, which the page walks newest
 * first and the count reads alone; the listings are read only for the page's rows (and, for a user
 * party to a block, for each favourite's owner).
 */
const shown = (db: Db, userId: number) =>
  db
    .selectFrom('favourites')
    .where('favourites.user_id', '=', userId)
    .where('favourites.listing_published', '=', 1)
    .where(favouriteNotBlockedBy(userId));

const q = {
  // The page is cut on the favourites' keys, then its listings are read: sorting the joined rows
  // would carry each listing's JSON (images, terms, contact: some 4 KB) through the sort. The
  // user's published favourites are walked in favourites_by_user's order, no sort, and the walk
  // stops at the page's end.
  shownPage: prepare((db, userId: number, limit: number, offset: number) =>
    db
      .selectFrom(
        shown(db, userId)
          .select(['favourites.listing_id', 'favourites.added_at', 'favourites.id'])
          // Most recently added first; the insertion order settles additions in the same millisecond.
          .orderBy('favourites.added_at', 'desc')
          .orderBy('favourites.id', 'desc')
          .limit(limit)
          .offset(offset)
          .as('page'),
      )
      .innerJoin('listings', 'listings.id', 'page.listing_id')
      .leftJoin('listing_details', 'listing_details.listing_id', 'listings.id')
      .select(LISTING_COLUMNS.map((c) => `listings.${c}` as const))
      .select(DETAIL_COLUMNS.map((c) => `listing_details.${c}` as const))
      .orderBy('page.added_at', 'desc')
      .orderBy('page.id', 'desc'),
  ),
  shownCount: prepare((db, userId: number) => shown(db, userId).select((eb) => eb.fn.countAll<number | string>().as('n'))),
};

/** `run`: the store's runner for reads outside units of work; each query is built and compiled once (prepared.ts). */
export function favouriteListRepository(run: QueryRunner): FavouriteListRepository {
  return {
    async shownPage(userId, offset, limit) {
      return (await q.shownPage(run, userId, limit, offset)).rows.map(toShownListing);
    },
    async countShown(userId) {
      return Number((await q.shownCount(run, userId)).rows[0]?.n ?? 0);
    },
  };
}

/** The left join's details: every column but `store` is NOT NULL, so a null pricing_type means no row. */
function detailsOf(row: ShownRow): DetailsRow {
  return row.pricing_type === null ? { ...NO_DETAILS, created_at: row.updated_at } : (row as DetailsRow);
}

function toShownListing(row: ShownRow): ShownListing {
  const d = detailsOf(row);
  return {
    listing: toListing(row, d.price_type),
    details: {
      pricingType: d.pricing_type as PricingType,
      maxPrice: d.max_price,
      priceType: d.price_type,
      priceUnit: d.price_unit,
      adType: d.ad_type,
      createdAt: Number(d.created_at),
      viewCount: Number(d.view_count),
      store: d.store === null ? null : (JSON.parse(d.store) as ListingStore),
      json: { priceUnits: d.price_units, tags: d.tags, promotions: d.promotions, badges: d.badges, contact: d.contact },
    },
  };
}
