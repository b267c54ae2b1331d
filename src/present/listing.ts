/** Builds the interface's listing summary (D7) as JSON text. */
import type { Listing } from '../domain/model.js';
import type { PriceFormat } from './price.js';
import { formatAmount } from './price.js';

export interface ListingPresentation {
  siteUrl: string;
  listingUrlTemplate: string;
  price: PriceFormat;
}

export function listingUrl(listing: Listing, p: ListingPresentation): string {
  return p.listingUrlTemplate
    .replaceAll('{site_url}', p.siteUrl)
    .replaceAll('{slug}', encodeURIComponent(listing.slug))
    .replaceAll('{id}', String(listing.id));
}

// The store hands out the same Listing object while the listing is unchanged, so its summary
// can be built once per presentation settings and reused.
const summaries = new WeakMap<ListingPresentation, WeakMap<Listing, string>>();

/**
 * The ListingSummary of wire-schemas.ts, field for field in its order. The images and terms are
 * already the interface's JSON (store/common/media-json.ts), and JSON.stringify writes a string exactly as the
 * compiled serialisers do, so these bytes are the ones a serialiser of the schema would write.
 */
export function listingSummaryJson(listing: Listing, p: ListingPresentation): string {
  let built = summaries.get(p);
  if (!built) summaries.set(p, (built = new WeakMap()));
  let summary = built.get(listing);
  if (summary === undefined) built.set(listing, (summary = buildSummaryJson(listing, p)));
  return summary;
}

function buildSummaryJson(listing: Listing, p: ListingPresentation): string {
  const { images, category, location } = listing.media;
  return (
    `{"id":${listing.id},"title":${JSON.stringify(listing.title)},"url":${JSON.stringify(listingUrl(listing, p))},` +
    `"images":${images},"amount":${JSON.stringify(formatAmount(listing.price, p.price, listing.priceType))},` +
    `"raw_price":${JSON.stringify(listing.price)},"location":${location},"category":${category}}`
  );
}
