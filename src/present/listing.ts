/** Builds the interface's listing summary (D7). */
import type { Listing } from '../domain/model.js';
import type { PriceFormat } from '../config.js';
import { formatAmount } from './price.js';
import type { ListingSummary } from './wire-schemas.js';

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
const summaries = new WeakMap<ListingPresentation, WeakMap<Listing, ListingSummary>>();

export function listingSummary(listing: Listing, p: ListingPresentation): ListingSummary {
  let built = summaries.get(p);
  if (!built) summaries.set(p, (built = new WeakMap()));
  let summary = built.get(listing);
  if (!summary) built.set(listing, (summary = buildSummary(listing, p)));
  return summary;
}

function buildSummary(listing: Listing, p: ListingPresentation): ListingSummary {
  return {
    id: listing.id,
    title: listing.title,
    url: listingUrl(listing, p),
    images: listing.images,
    amount: formatAmount(listing.price, p.price),
    raw_price: listing.price,
    location: listing.location,
    category: listing.category,
  };
}
