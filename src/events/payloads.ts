/**
 * The events' payloads on the wire, in the shapes the routes already use (src/present/):
 * `conversation.new` `{conversation}` (the conversation start's reply, with `newMessage`),
 * `message.new`, `message.update` and `message.removed` `{message}` (the message object of POST my/chat/message),
 * `conversation.unread` `{user_id, count, conversation_id}`, `conversation.left`
 * `{conversation_id, user_id}`, `favourite.added` / `favourite.removed` `{user_id, listing_id}`,
 * `report.created` `{report}` (present/report.ts), `offer.accepted` `{offer, conversation, listing}`
 * (present/chat/offer.ts).
 */
import type { DomainEvent } from '../domain/events.js';
import { conversationReplyJson } from '../present/chat/conversation.js';
import { chatMessage } from '../present/chat/message.js';
import { offerAcceptedJson } from '../present/chat/offer.js';
import type { Presentation } from '../present/presentation.js';
import { reportObject } from '../present/report.js';

/** The event's payload as JSON text (one line: JSON.stringify escapes every line break). */
export function payloadJson(event: DomainEvent, p: Presentation): string {
  switch (event.type) {
    case 'conversation.new':
      return `{"conversation":${conversationReplyJson(event.started, p)}}`;
    case 'message.new':
    case 'message.update':
    case 'message.removed':
      return JSON.stringify({ message: chatMessage(event.message, p) });
    case 'conversation.unread':
      return JSON.stringify({ user_id: event.userId, count: event.count, conversation_id: event.conversationId });
    case 'conversation.left':
      return JSON.stringify({ conversation_id: event.conversationId, user_id: event.userId });
    case 'favourite.added':
    case 'favourite.removed':
      return JSON.stringify({ user_id: event.userId, listing_id: event.listingId });
    case 'report.created':
      return JSON.stringify({ report: reportObject(event.report, p) });
    case 'offer.accepted':
      return offerAcceptedJson(event.offer, event.conversation, event.listing, p);
  }
}

/** A logged event's payload: its stored domain JSON, presented. */
export const loggedPayloadJson = (stored: string, p: Presentation): string => payloadJson(JSON.parse(stored) as DomainEvent, p);
