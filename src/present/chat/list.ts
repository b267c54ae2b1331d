/**
 * GET my/chat in both reply generations (docs/routes.md N4), as JSON text: the listing summary and
 * the users are JSON already (listing.ts, user.ts), the rest is written in the original's key order.
 * The schemas in schemas.ts describe the same objects for the OpenAPI document; the contract
 * tests compare real replies with the recordings.
 */
import type { ConversationListItem, ConversationsPage } from '../../domain/chat/list.js';
import type { Presentation } from '../presentation.js';
import { fieldsJson, text } from '../json-fields.js';
import { classicConversationFields, conversationJson, digits, flag, listingJson, paginationJson, summaryJson } from './common.js';

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

/** GET my/chat. Classic: a bare array (the caller asked the store for listed conversations only). */
export function conversationListJson(page: ConversationsPage, p: Presentation): string {
  if (p.replyFormat === 'classic') return `[${page.items.map((item) => classicListItemJson(item, p)).join(',')}]`;
  const items = page.items.map((item) => listItemJson(item, p));
  return `{"data":[${items.join(',')}],"pagination":${paginationJson(page.total, page.perPage, page.page)}}`;
}
