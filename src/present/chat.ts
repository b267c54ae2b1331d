/**
 * The chat's reads in both reply generations (docs/routes.md N4, GET my/chat, my/chat/check,
 * my/chat/conversation), as JSON text: the listing summary and the users are JSON already (listing.ts,
 * user.ts), the rest is written in the original's key order. The schemas in chat-schemas.ts describe
 * the same objects for the OpenAPI document; the contract tests compare real replies with the
 * recordings.
 */
import type { ConversationView } from '../domain/chat/common.js';
import type { ConversationRead } from '../domain/chat/conversation.js';
import type { ConversationListItem, ConversationsPage } from '../domain/chat/list.js';
import type { Conversation, Message } from '../domain/model.js';
import type { Presentation } from './conversation.js';
import { fieldsJson, objectJson, text, type Field } from './json-fields.js';
import { listingSummaryJson } from './listing.js';
import { userSummaryJson } from './user.js';

const bool = (b: boolean) => (b ? 'true' : 'false');
/** A number or flag as the original's database rows carry it: a string of digits. */
const digits = (n: number | boolean) => text(String(Number(n)));
const flag = (b: boolean) => (b ? '1' : '0');
const num = (n: number | boolean) => String(Number(n));

// The current generation's objects, the ones the apps poll, are written as text in one go (a read
// writes 50 messages, a list 20 items), the classic ones field by field: the same bytes either way.
const listingJson = (view: ConversationView, p: Presentation) => (view.listing ? listingSummaryJson(view.listing, p) : 'null');
const summaryJson = (view: ConversationView) =>
  `"unread_count":${view.unreadCount},"sender":${userSummaryJson(view.sender)},"recipient":${userSummaryJson(view.recipient)}`;

/** The conversation's own columns, typed as the current generation types them. */
const conversationJson = (c: Conversation) =>
  `"listing_id":${c.listingId},"sender_id":${c.senderId},"recipient_id":${c.recipientId},"sender_delete":${bool(c.senderDelete)},` +
  `"recipient_delete":${bool(c.recipientDelete)},"last_message_id":${c.lastMessageId ?? 0},"sender_review":${bool(c.senderReview)},` +
  `"recipient_review":${bool(c.recipientReview)},"invert_review":${bool(c.invertReview)}`;

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
function lastMessageJson(item: ConversationListItem, p: Presentation): string {
  const { lastMessage: m, other } = item;
  const names = `"display_name":${text(other.name || other.login)},"user_login":${text(other.login)},"other_id":"${other.id}"`;
  if (!m) return `"message":null,"is_read":null,"source_id":null,"last_message":null,"last_message_created_at":null,${names}`;
  const message = text(m.text);
  return (
    `"message":${message},"is_read":"${flag(m.isRead)}","source_id":"${m.sourceId}","last_message":${message},` +
    `"last_message_created_at":${text(p.formatTime(m.createdAt))},${names}`
  );
}

function listItemJson(item: ConversationListItem, p: Presentation): string {
  const c = item.conversation;
  return (
    `{"con_id":${c.id},${conversationJson(c)},"created_at":${text(p.formatTime(c.createdAt))},"updated_at":${text(p.formatTime(c.updatedAt))},` +
    `${lastMessageJson(item, p)},"listing":${listingJson(item, p)},${summaryJson(item)}}`
  );
}

function classicListItemJson(item: ConversationListItem, p: Presentation): string {
  const c = item.conversation;
  const head = fieldsJson([...classicConversationFields(c, digits), ['created_at', text(p.formatTime(c.createdAt))]]);
  return `{${head},${lastMessageJson(item, p)},"listing":${listingJson(item, p)},${summaryJson(item)}}`;
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
  const attachments = m.attachments === null ? 'null' : text(JSON.stringify(m.attachments));
  return (
    `{"message_id":"${m.id}","con_id":"${m.conId}","source_id":"${m.sourceId}","type":${text(m.type)},"message":${text(m.text)},` +
    `"attachments":${attachments},"meta":null,"is_read":"${flag(m.isRead)}","created_at":${text(p.formatTime(m.createdAt))}}`
  );
}

function classicMessageRowJson(m: Message, p: Presentation): string {
  return (
    `{"message_id":"${m.id}","con_id":"${m.conId}","source_id":"${m.sourceId}","message":${text(m.text)},` +
    `"is_read":"${flag(m.isRead)}","created_at":${text(p.formatTime(m.createdAt))}}`
  );
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
  const lastJson = last
    ? `"last_message":${text(last.text)},"last_message_created_at":${text(p.formatTime(last.createdAt))}`
    : '"last_message":null,"last_message_created_at":null';
  return (
    `{"con_id":${c.id},"listing":${listingJson(view, p)},${summaryJson(view)},${conversationJson(c)},` +
    `"created_at":${text(p.formatTime(c.createdAt))},"updated_at":${text(p.formatTime(c.updatedAt))},${lastJson},` +
    `"messages":[${read.messages.map((m) => messageRowJson(m, p)).join(',')}],"pagination":${paginationJson(read.total, read.perPage, read.page)}}`
  );
}
