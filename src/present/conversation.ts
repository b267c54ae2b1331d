/** Builds the start-conversation reply, every field of the interface's table in its order (D6). */
import type { StartedConversation } from '../domain/chat.js';
import type { Message } from '../domain/model.js';
import { listingSummary, type ListingPresentation } from './listing.js';
import type { TimeFormatter } from './time.js';
import { userSummary } from './user.js';
import type { ChatMessage, ConversationReply } from './wire-schemas.js';

export interface Presentation extends ListingPresentation {
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

export function conversationReply(s: StartedConversation, p: Presentation): ConversationReply {
  const c = s.conversation;
  return {
    con_id: c.id,
    listing: listingSummary(s.listing, p),
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
}
