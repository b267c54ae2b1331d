/** A message as my/chat/message answers it, and as the start's `newMessage` and the events carry it. */
import type { Message } from '../../domain/model.js';
import type { TimeFormatter } from '../time.js';
import { shownAttachments, type FileAddress } from './attachments.js';
import type { ChatMessage } from './schemas.js';

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
    meta: null,
    attachments: shownAttachments(m.attachments, p.fileAddress),
    type: m.type,
    is_read: m.isRead ? 1 : 0,
    created_at: p.formatTime(m.createdAt),
    temp_id: m.tempId ?? '',
  };
}
