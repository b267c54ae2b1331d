/**
 * The chat's reads in both reply generations (neighbours.md N4, GET my/chat, my/chat/check,
 * my/chat/conversation), as JSON text: the listing summary is JSON already (listing.ts), the rest
 * is written field by field in the original's key order. The schemas in chat-schemas.ts describe
 * the same objects for the OpenAPI document; the contract tests compare real replies with the
 * recordings.
 */
import type { ConversationListItem, ConversationRead, ConversationsPage, ConversationView } from '../domain/conversations.js';
import type { Conversation, Message } from '../domain/model.js';
import type { Presentation } from './conversation.js';
import { objectJson, text, type Field } from './json-fields.js';
import { listingSummaryJson } from './listing.js';
import { userSummary } from './user.js';

const int = (n: number) => String(n);
const bool = (b: boolean) => (b ? 'true' : 'false');
/** A number or flag as the original's database rows carry it: a string of digits. */
const digits = (n: number | boolean) => text(String(Number(n)));
const flag = (b: boolean) => (b ? '1' : '0');
const num = (n: number | boolean) => String(Number(n));

const listingJson = (view: ConversationView, p: Presentation) => (view.listing ? listingSummaryJson(view.listing, p) : 'null');
const summaryJson = (view: ConversationView) => [
  ['unread_count', int(view.unreadCount)] as Field,
  ['sender', JSON.stringify(userSummary(view.sender))] as Field,
  ['recipient', JSON.stringify(userSummary(view.recipient))] as Field,
];

/** The conversation's own columns, typed as the current generation types them. */
function conversationFields(c: Conversation): Field[] {
  return [
    ['listing_id', int(c.listingId)],
    ['sender_id', int(c.senderId)],
    ['recipient_id', int(c.recipientId)],
    ['sender_delete', bool(c.senderDelete)],
    ['recipient_delete', bool(c.recipientDelete)],
    ['last_message_id', int(c.lastMessageId ?? 0)],
    ['sender_review', bool(c.senderReview)],
    ['recipient_review', bool(c.recipientReview)],
    ['invert_review', bool(c.invertReview)],
  ];
}

/** The same columns as the classic generation types them: ints, flags 0 or 1. */
function classicConversationFields(c: Conversation, as: (n: number | boolean) => string): Field[] {
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

/** The last message's part of a list item: its text, whether read, who sent it, then the list's copies. */
function lastMessageFields(item: ConversationListItem, p: Presentation): Field[] {
  const m = item.lastMessage;
  const sentAt = m ? text(p.formatTime(m.createdAt)) : 'null';
  return [
    ['message', m ? text(m.text) : 'null'],
    ['is_read', m ? text(flag(m.isRead)) : 'null'],
    ['source_id', m ? text(String(m.sourceId)) : 'null'],
    ['last_message', m ? text(m.text) : 'null'],
    ['last_message_created_at', sentAt],
    ['display_name', text(item.other.name || item.other.login)],
    ['user_login', text(item.other.login)],
    ['other_id', text(String(item.other.id))],
  ];
}

function listItemJson(item: ConversationListItem, p: Presentation): string {
  const c = item.conversation;
  return objectJson([
    ['con_id', int(c.id)],
    ...conversationFields(c),
    ['created_at', text(p.formatTime(c.createdAt))],
    ['updated_at', text(p.formatTime(c.updatedAt))],
    ...lastMessageFields(item, p),
    ['listing', listingJson(item, p)],
    ...summaryJson(item),
  ]);
}

function classicListItemJson(item: ConversationListItem, p: Presentation): string {
  const c = item.conversation;
  return objectJson([
    ...classicConversationFields(c, digits),
    ['created_at', text(p.formatTime(c.createdAt))],
    ...lastMessageFields(item, p),
    ['listing', listingJson(item, p)],
    ...summaryJson(item),
  ]);
}

const paginationJson = (total: number, perPage: number, page: number) =>
  `{"total":${total},"per_page":${perPage},"current_page":${page},"total_pages":${Math.ceil(total / perPage)}}`;

/** GET my/chat. Classic: a bare array (the caller asked the store for listed conversations only). */
export function conversationListJson(page: ConversationsPage, p: Presentation): string {
  if (p.replyFormat === 'classic') return `[${page.items.map((item) => classicListItemJson(item, p)).join(',')}]`;
  const items = page.items.map((item) => listItemJson(item, p));
  return `{"data":[${items.join(',')}],"pagination":${paginationJson(page.total, page.perPage, page.page)}}`;
}

function messageRowJson(m: Message, p: Presentation): string {
  return objectJson([
    ['message_id', text(String(m.id))],
    ['con_id', text(String(m.conId))],
    ['source_id', text(String(m.sourceId))],
    ['type', text(m.type)],
    ['message', text(m.text)],
    ['attachments', m.attachments === null ? 'null' : text(JSON.stringify(m.attachments))],
    ['meta', 'null'],
    ['is_read', text(flag(m.isRead))],
    ['created_at', text(p.formatTime(m.createdAt))],
  ]);
}

function classicMessageRowJson(m: Message, p: Presentation): string {
  return objectJson([
    ['message_id', text(String(m.id))],
    ['con_id', text(String(m.conId))],
    ['source_id', text(String(m.sourceId))],
    ['message', text(m.text)],
    ['is_read', text(flag(m.isRead))],
    ['created_at', text(p.formatTime(m.createdAt))],
  ]);
}

/**
 * GET my/chat/conversation and an existing conversation of GET my/chat/check. Current: the
 * conversation object, its messages newest first and their pagination. Classic: the classic
 * object and the same messages in the order they were sent.
 */
export function conversationReadJson(read: ConversationRead, p: Presentation): string {
  const { view } = read;
  const c = view.conversation;
  if (p.replyFormat === 'classic') {
    const rows = read.messages.map((m) => classicMessageRowJson(m, p)).reverse();
    return objectJson([...classicConversationFields(c, num), ['messages', `[${rows.join(',')}]`]]);
  }
  const last = view.lastMessage;
  return objectJson([
    ['con_id', int(c.id)],
    ['listing', listingJson(view, p)],
    ...summaryJson(view),
    ...conversationFields(c),
    ['created_at', text(p.formatTime(c.createdAt))],
    ['updated_at', text(p.formatTime(c.updatedAt))],
    ['last_message', last ? text(last.text) : 'null'],
    ['last_message_created_at', last ? text(p.formatTime(last.createdAt)) : 'null'],
    ['messages', `[${read.messages.map((m) => messageRowJson(m, p)).join(',')}]`],
    ['pagination', paginationJson(read.total, read.perPage, read.page)],
  ]);
}
