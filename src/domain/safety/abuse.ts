/** What the abuse limits (NEW_CONVERSATIONS_PER_HOUR, MESSAGES_PER_MINUTE) ask of the chat. */
import type { Repositories } from '../ports.js';

/**
 * Whether a start about the listing would add a message to the caller's open conversation about
 * it rather than open a new one: a sender at the limit of new conversations may still write in theirs.
 */
export async function continuesConversation(repos: Repositories, listingId: number, callerId: number): Promise<boolean> {
  const listing = await repos.listings.findById(listingId);
  return listing !== undefined && (await repos.conversations.findOpen(listing.id, callerId, listing.ownerId)) !== undefined;
}
