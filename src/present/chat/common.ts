/**
 * What the chat's presenters share (list.ts, conversation.ts): the conversation's columns in both
 * reply generations, its summary and listing, the pagination, as JSON text.
 */
import type { ConversationView } from '../../domain/chat/common.js';
import type { Conversation } from '../../domain/model.js';
import type { Presentation } from '../presentation.js';
import { text, type Field } from '../json-fields.js';
import { listingSummaryJson } from '../listing.js';
import { userSummaryJson } from '../user.js';

export const bool = (b: boolean) => (b ? 'true' : 'false');
/** A number or flag as the original's database rows carry it: a string of digits. */
export const digits = (n: number | boolean) => text(String(Number(n)));
export const flag = (b: boolean) => (b ? '1' : '0');
export const num = (n: number | boolean) => String(Number(n));

// The current generation's objects, the ones the apps poll, are written as text in one go (a read
// writes 50 messages, a list 20 items), the classic ones field by field: the same bytes either way.
export const listingJson = (view: ConversationView, p: Presentation) => (view.listing ? listingSummaryJson(view.listing, p) : 'null');
export const summaryJson = (view: ConversationView) =>
  `"unread_count":${view.unreadCount},"sender":${userSummaryJson(view.sender)},"recipient":${userSummaryJson(view.recipient)}`;

/** The conversation's own columns, typed as the current generation types them. */
export const conversationJson = (c: Conversation) =>
  `"listing_id":${c.listingId},"sender_id":${c.senderId},"recipient_id":${c.recipientId},"sender_delete":${bool(c.senderDelete)},` +
  `"recipient_delete":${bool(c.recipientDelete)},"last_message_id":${c.lastMessageId ?? 0},"sender_review":${bool(c.senderReview)},` +
  `"recipient_review":${bool(c.recipientReview)},"invert_review":${bool(c.invertReview)}`;

/** The same columns as the classic generation types them: ints, flags 0 or 1. */
export function classicConversationFields(c: Conversation, as: (n: number | boolean) => string): Field[] {
  return [
    ['con_id', as(c.id)],
    ['listing_id', as(c.listingId)],
    ['sender_id', as(c.senderId)],
    ['recipient_id', as(c.recipientId)],
    ['sender_delete', as(c.senderDelete)],
    ['recipient_delete', as(c.recipientDelete)],
    ['last_message_id', as(c.lastMessageId ?? 0)],
    ['sender_review', as(c.senderReview)],
    ['recipient_review', as(c.recipientReview)],
    ['invert_review', as(c.invertReview)],
  ];
}

export const paginationJson = (total: number, perPage: number, page: number) =>
  `{"total":${total},"per_page":${perPage},"current_page":${page},"total_pages":${Math.ceil(total / perPage)}}`;
