/** An offer on the wire (docs/offers.md): a message's `meta.offer`, and the `offer.accepted` webhook's data. */
import type { Conversation, Listing, Message } from '../../domain/model.js';
import type { Presentation } from '../presentation.js';
import type { TimeFormatter } from '../time.js';
import { text } from '../json-fields.js';
import { listingSummaryJson } from '../listing.js';
import { conversationJson } from './common.js';
import { chatMessage, messageMeta } from './message.js';

/** A message's meta as a message row carries it (the JSON text, as its attachments), or null. */
export const metaRowJson = (m: Message, formatTime: TimeFormatter): string => {
  const meta = messageMeta(m, formatTime);
  return meta ? text(JSON.stringify(meta)) : 'null';
};

/** `offer.accepted`: the offer (a message object), its conversation's columns (as the current generation types them) and its listing's summary. */
export function offerAcceptedJson(offer: Message, c: Conversation, listing: Listing | undefined, p: Presentation): string {
  const conversation =
    `{"con_id":${c.id},${conversationJson(c)},"created_at":${text(p.formatTime(c.createdAt))},` +
    `"updated_at":${text(p.formatTime(c.updatedAt))}}`;
  const listingJson = listing ? listingSummaryJson(listing, p) : 'null';
  return `{"offer":${JSON.stringify(chatMessage(offer, p))},"conversation":${conversation},"listing":${listingJson}}`;
}
