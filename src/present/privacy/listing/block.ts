/** privacy/listing/block's reply: the blocked listings as the plugin lists them (`Functions::getBlockedListingList`). */
import type { Listing } from '../../../domain/model.js';

export interface BlockedListingItem {
  id: number;
  title: string;
}

/** A listing no longer published (pending review, a draft, expired) keeps its place with no title: the site does not show it now. */
export const blockedListingItem = (listing: Listing): BlockedListingItem => ({
  id: listing.id,
  title: listing.status === 'publish' ? listing.title : '',
});

export const blockedListingList = (listings: Listing[]): BlockedListingItem[] => listings.map(blockedListingItem);
