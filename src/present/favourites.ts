/**
 * GET my/favourites in both reply generations (docs/routes.md N4), as JSON text. A listing's images,
 * terms and details are already the reply's JSON (store/common/media-json.ts) and go in as stored;
 * the rest is written with JSON.stringify. Each item holds the keys of ListingListItem or
 * ClassicListingListItem (wire-schemas.ts) in their order; the contract test checks real replies.
 */
import type { FavouritesPage } from '../domain/favourites.js';
import type { ShownListing, User } from '../domain/model.js';
import { userObjectJson } from './account.js';
import { text } from './json-fields.js';
import { utcOffsetOf, utcTime, type TimeFormatter } from './time.js';
import type { Pagination } from './wire-schemas.js';

/** Which generation of replies the apps get (CHAT_REPLY_FORMAT; docs/routes.md "Two generations of reply"). */
export type ReplyFormat = 'current' | 'classic';

export interface FavouritesPresentation {
  replyFormat: ReplyFormat;
  /** Times in the site time zone. */
  formatTime: TimeFormatter;
}

/** The date as PHP's DateTime encodes it: microseconds (a listing's date has none) and the offset ([016] `date_created`). */
function dateCreatedJson(localTime: string, epochMs: number): string {
  return `{"date":"${localTime}.000000","timezone_type":1,"timezone":"${utcOffsetOf(localTime, epochMs)}"}`;
}

/** [016]: `tags` is false, not [], for a listing without tags. */
const tagsJson = (stored: string) => (stored === '[]' ? 'false' : stored);

/** One item, written as text in one go (a page has 20): the keys of ListingListItem or ClassicListingListItem in their order. */
function listItemJson(shown: ShownListing, owner: User, p: FavouritesPresentation): string {
  const { listing, details } = shown;
  const localTime = p.formatTime(details.createdAt);
  const head = `"listing_id":${listing.id},"author_id":${listing.ownerId}`;
  // [016]: price and raw_price are the stored price as it is ("200", not "200.00"); max_price
  // is the stored one too, "0" when there is none (raw_max_price "").
  const price = text(listing.price);
  const pricing =
    `"title":${text(listing.title)},"pricing_type":${text(details.pricingType)},"raw_price":${price},"raw_max_price":${text(details.maxPrice)},` +
    `"price":${price},"max_price":${text(details.maxPrice || '0')},"price_type":${text(details.priceType)},` +
    `"price_units":${details.json.priceUnits},"price_unit":${text(details.priceUnit)},"categories":${listing.media.category}`;
  const state =
    `"ad_type":${text(details.adType)},"status":${text(listing.status)},"images":${listing.media.images},` +
    `"date_created":${dateCreatedJson(localTime, details.createdAt)},"created_at":${text(localTime)}`;
  const tail =
    `"view_count":${details.viewCount},"promotions":${details.json.promotions},"badges":${details.json.badges},` +
    `"contact":${details.json.contact}`;
  if (p.replyFormat === 'classic') {
    // N4's Fix: the Flutter app needs created_at_gmt and store; a listing without a store has id 0.
    const store = details.store ?? { id: 0, title: '' };
    const gmt = text(utcTime(details.createdAt));
    return `{${head},${pricing},${state},"created_at_gmt":${gmt},${tail},"store":{"id":${store.id},"title":${text(store.title)}}}`;
  }
  return `{${head},"author":${userObjectJson(owner)},${pricing},"tags":${tagsJson(details.json.tags)},${state},${tail}}`;
}

function pagination(page: FavouritesPage): Pagination {
  return {
    total: page.total,
    count: page.items.length,
    per_page: page.perPage,
    current_page: page.page,
    total_pages: Math.ceil(page.total / page.perPage),
  };
}

/** The reply; `{"data":[],"pagination":null}` when the caller has no favourite to show ([024]). */
export function favouritesReplyJson(page: FavouritesPage, p: FavouritesPresentation): string {
  if (page.total === 0) return '{"data":[],"pagination":null}';
  const items = page.items.map(({ shown, owner }) => listItemJson(shown, owner, p));
  return `{"data":[${items.join(',')}],"pagination":${JSON.stringify(pagination(page))}}`;
}
