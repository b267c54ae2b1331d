/** privacy/listing/block's reply: the blocked listings as the plugin lists them (`Functions::getBlockedListingList`). */
import type { Listing } from '../../../domain/model.js';

export interface BlockedListingItem {
  id: number;
  title: string;
}

export const blockedListingItem = (listing: Listing): BlockedListingItem => ({ id: listing.id, title: listing.title });

export const blockedListingList = (listings: Listing[]): BlockedListingItem[] => listings.map(blockedListingItem);
