/**
 * The data of the Pusher events (docs/pusher.md), in the plugin's shapes (Pro 4.0.2): a message
 * is `Message::getData()`, ids and `is_read` JSON integers (the web chat compares them strictly);
 * a conversation is `Conversation::getData()` without the participants' e-mail, phone and
 * WhatsApp (the channels are public). Times in the site's local time, as the plugin's tables.
 */
import type { StartedConversation } from '../domain/chat/conversation.js';
import type { Message, MessageAttachment } from '../domain/model.js';
import { shownAttachments } from './chat/attachments.js';
import type { MessagePresentation } from './chat/message.js';
import { listingSummaryJson } from './listing.js';
import type { Presentation } from './presentation.js';
import { userSummary } from './user.js';

/** `Message::getData()`: its keys in its order. */
export interface PusherMessage {
  message_id: number;
  con_id: number;
  source_id: number;
  message: string;
  meta: null;
  attachments: MessageAttachment[] | Array<{ url: string; type?: string }> | null;
  type: string;
  is_read: 0 | 1;
  created_at: string;
}

export function pusherMessage(m: Message, p: MessagePresentation): PusherMessage {
  return {
    message_id: m.id,
    con_id: m.conId,
    source_id: m.sourceId,
    message: m.text,
    meta: null,
    attachments: shownAttachments(m.attachments, p.fileAddress),
    type: m.type,
    is_read: m.isRead ? 1 : 0,
    created_at: p.formatTime(m.createdAt),
  };
}

/** A participant as the public channel may show them: no e-mail, phone or WhatsApp. */
function participant(user: StartedConversation['sender']) {
  const { id, name, website, profile_picture } = userSummary(user);
  return { id, name, website, profile_picture };
}

/** `Conversation::getData()` for `forUserId`: their unread count (the recipient has the first message unread). */
export function pusherConversation(s: StartedConversation, forUserId: number, p: Presentation) {
  const c = s.conversation;
  return {
    con_id: c.id,
    listing: JSON.parse(listingSummaryJson(s.listing, p)) as Record<string, unknown>,
    unread_count: forUserId === c.recipientId ? s.unreadCount : 0,
    sender: participant(s.sender),
    recipient: participant(s.recipient),
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
  };
}

export type PusherConversation = ReturnType<typeof pusherConversation>;

/**
 * Ways to make an event's data smaller, in the order tried when it is over Pusher's 10 KB: the
 * attachments' metadata first (their addresses and kinds stay), then the attachments, then the
 * listing's images and terms, then the text, cut.
 */
export function trimmedSteps(data: { message?: PusherMessage; conversation?: PusherConversation }): Array<() => void> {
  const steps: Array<() => void> = [];
  const m = data.message;
  if (m?.attachments) {
    steps.push(
      () => (m.attachments = m.attachments!.map((file) => ('type' in file ? { url: file.url, type: file.type } : { url: file.url }))),
    );
    steps.push(() => (m.attachments = null));
  }
  const c = data.conversation;
  if (c) steps.push(() => Object.assign(c.listing, { images: [], location: [], category: [] }));
  if (m || c) {
    const cut = (s: string) => `${Array.from(s).slice(0, 500).join('')}…`;
    steps.push(() => {
      if (m) m.message = cut(m.message);
      if (c) c.last_message = cut(c.last_message);
    });
  }
  return steps;
}
