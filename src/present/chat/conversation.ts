/**
 * my/chat/conversation's replies, as JSON text: the start's (POST, every field of the interface's
 * table in its order, D6) and the read's (GET, and my/chat/check's) in both reply generations
 * (docs/routes.md N4).
 */
import fastJson from 'fast-json-stringify';
import { Type } from '@sinclair/typebox';
import type { ConversationRead, StartedConversation } from '../../domain/chat/conversation.js';
import type { Message } from '../../domain/model.js';
import { listingSummaryJson } from '../listing.js';
import type { Presentation } from '../presentation.js';
import { objectJson, text } from '../json-fields.js';
import { userSummary } from '../user.js';
import { ConversationReply } from './schemas.js';
import { chatMessage } from './message.js';
import { metaRowJson } from './offer.js';
import { classicMessageText, shownAttachments } from './attachments.js';
import { classicConversationFields, conversationJson, flag, listingJson, num, paginationJson, summaryJson } from './common.js';

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
    newMessage: chatMessage(s.message, p),
  };
  // serialiseRest writes "{" and at least one field: its "{" becomes the comma after the listing.
  return `{"con_id":${c.id},"listing":${listingSummaryJson(s.listing, p)},${serialiseRest(rest).slice(1)}`;
}

function messageRowJson(m: Message, p: Presentation): string {
  const attachments = m.attachments === null ? 'null' : text(JSON.stringify(shownAttachments(m.attachments, p.fileAddress)));
  return (
    `{"message_id":"${m.id}","con_id":"${m.conId}","source_id":"${m.sourceId}","type":${text(m.type)},"message":${text(m.text)},` +
    `"attachments":${attachments},"meta":${metaRowJson(m, p.formatTime)},"is_read":"${flag(m.isRead)}","created_at":${text(p.formatTime(m.createdAt))}}`
  );
}

function classicMessageRowJson(m: Message, p: Presentation): string {
  return (
    `{"message_id":"${m.id}","con_id":"${m.conId}","source_id":"${m.sourceId}","message":${text(classicMessageText(m, p.fileAddress))},` +
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
