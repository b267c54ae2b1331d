/** The favourites list's reads (GET my/favourites): shown favourites with their listings' details. */
import type { Kysely, Selectable } from 'kysely';
import { DEFAULT_LISTING_DETAILS, type ListingStore, type PricingType, type ShownListing } from '../../domain/model.js';
import type { FavouriteListRepository } from '../../domain/ports.js';
import { listingDetailsRow } from './catalog.js';
import { toListing } from './rows.js';
import { LISTING_COLUMNS, LISTING_DETAIL_COLUMNS, type Database, type ListingDetailsTable, type ListingsTable } from './schema.js';

/** The details' columns but the key, which the listing's id already gives. */
const DETAIL_COLUMNS = LISTING_DETAIL_COLUMNS.filter((c): c is Exclude<typeof c, 'listing_id'> => c !== 'listing_id');

type DetailsRow = Omit<Selectable<ListingDetailsTable>, 'listing_id'>;
type ShownRow = Selectable<ListingsTable> & { [K in keyof DetailsRow]: DetailsRow[K] | null };

/** What a listing imported before its details existed (migration 009) shows: the import's defaults. */
const NO_DETAILS = listingDetailsRow(DEFAULT_LISTING_DETAILS);

export function favouriteListRepository(db: Kysely<Database>): FavouriteListRepository {
  // The favourites the list shows: the user's, whose listing is published.
  const shown = (userId: number) =>
    db
      .selectFrom('favourites')
      .innerJoin('listings', 'listings.id', 'favourites.listing_id')
      .where('favourites.user_id', '=', userId)
      .where('listings.status', '=', 'publish');
  return {
    async shownPage(userId, offset, limit) {
      const rows = await shown(userId)
        .leftJoin('listing_details', 'listing_details.listing_id', 'listings.id')
        .select(LISTING_COLUMNS.map((c) => `listings.${c}` as const))
        .select(DETAIL_COLUMNS.map((c) => `listing_details.${c}` as const))
        // Most recently added first; the insertion order settles additions in the same millisecond.
        .orderBy('favourites.added_at', 'desc')
        .orderBy('favourites.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map(toShownListing);
    },
    async countShown(userId) {
      const row = await shown(userId)
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
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
