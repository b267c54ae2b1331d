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

export function listingSummary(listing: Listing, p: ListingPresentation): ListingSummary {
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
