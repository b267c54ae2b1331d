/** Builds the start-conversation reply, every field of the interface's table in its order (D6), as JSON text. */
import fastJson from 'fast-json-stringify';
import { Type } from '@sinclair/typebox';
import type { StartedConversation } from '../domain/chat/conversation.js';
import type { Message } from '../domain/model.js';
import type { FavouritesPresentation } from './favourites.js';
import { listingSummaryJson, type ListingPresentation } from './listing.js';
import type { TimeFormatter } from './time.js';
import { userSummary } from './user.js';
import { ConversationReply, type ChatMessage } from './wire-schemas.js';

export interface Presentation extends ListingPresentation, FavouritesPresentation {
  formatTime: TimeFormatter;
}

export function chatMessage(m: Message, formatTime: TimeFormatter): ChatMessage {
  return {
    message_id: m.id,
    con_id: m.conId,
    source_id: m.sourceId,
    message: m.text,
    meta: null,
    attachments: m.attachments,
    type: m.type,
    is_read: m.isRead ? 1 : 0,
    created_at: formatTime(m.createdAt),
    temp_id: m.tempId ?? '',
  };
}

/** Everything of the reply after `listing`, serialised by the schema like any reply. */
const serialiseRest = fastJson(Type.Omit(ConversationReply, ['con_id', 'listing']));

/**
 * The reply as JSON text: `con_id` and the listing summary, already JSON (listing.ts), then the
 * rest through its compiled serialiser; the bytes a serialiser of the whole schema would write.
 */
export function conversationReplyJson(s: StartedConversation, p: Presentation): string {
  const c = s.conversation;
  const rest: Omit<ConversationReply, 'con_id' | 'listing'> = {
    unread_count: s.unreadCount,
    sender: userSummary(s.sender),
    recipient: userSummary(s.recipient),
    listing_id: c.listingId,
    sender_id: c.senderId,
    recipient_id: c.recipientId,
    sender_delete: c.senderDelete,
    recipient_delete: c.recipientDelete,
    last_message_id: s.lastMessage.id,
    sender_review: c.senderReview,
    recipient_review: c.recipientReview,
    invert_review: c.invertReview,
    created_at: p.formatTime(c.createdAt),
    updated_at: p.formatTime(c.updatedAt),
    last_message: s.lastMessage.text,
    last_message_created_at: p.formatTime(s.lastMessage.createdAt),
    newMessage: chatMessage(s.message, p.formatTime),
  };
  // serialiseRest writes "{" and at least one field: its "{" becomes the comma after the listing.
  return `{"con_id":${c.id},"listing":${listingSummaryJson(s.listing, p)},${serialiseRest(rest).slice(1)}`;
}
