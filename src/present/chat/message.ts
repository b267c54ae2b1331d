/** A message as my/chat/message answers it, and as the start's `newMessage` and the events carry it. */
import type { Message } from '../../domain/model.js';
import type { TimeFormatter } from '../time.js';
import type { ChatMessage } from './schemas.js';

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
