/** A message as my/chat/message answers it, and as the start's `newMessage` and the events carry it. */
import type { Message, Offer } from '../../domain/model.js';
import type { TimeFormatter } from '../time.js';
import { shownAttachments, type FileAddress } from './attachments.js';
import type { ChatMessage, EditedMeta, OfferMeta } from './schemas.js';

/** What presenting a message takes (a Presentation has both). */
export interface MessagePresentation {
  formatTime: TimeFormatter;
  fileAddress?: FileAddress;
}

export function chatMessage(m: Message, p: MessagePresentation): ChatMessage {
  return {
    message_id: m.id,
    con_id: m.conId,
    source_id: m.sourceId,
    message: m.text,
    meta: messageMeta(m, p.formatTime),
    attachments: shownAttachments(m.attachments, p.fileAddress),
    type: m.type,
    is_read: m.isRead ? 1 : 0,
    created_at: p.formatTime(m.createdAt),
    temp_id: m.tempId ?? '',
  };
}

/** An offer's `meta` (docs/offers.md): `{"offer": {amount, currency, status, by, expires_at}}`, its time as the message's own. */
export function offerMeta(o: Offer, formatTime: TimeFormatter): OfferMeta {
  return { offer: { amount: o.amount, currency: o.currency, status: o.status, by: o.by, expires_at: formatTime(o.expiresAt) } };
}

/** A message's `meta`: an offer's, or `{"edited_at"}` once its sender corrected it (docs/chat-plus.md), or null. */
export function messageMeta(m: Message, formatTime: TimeFormatter): OfferMeta | EditedMeta | null {
  if (m.offer) return offerMeta(m.offer, formatTime);
  return m.editedAt === undefined ? null : { edited_at: formatTime(m.editedAt) };
}
