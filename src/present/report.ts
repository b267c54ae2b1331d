/** A report as the `report.created` webhook carries it: its messages in the message object of POST my/chat/message. */
import type { Report } from '../domain/reports.js';
import { chatMessage } from './chat/message.js';
import type { TimeFormatter } from './time.js';

export function reportObject(r: Report, formatTime: TimeFormatter) {
  return {
    report_id: r.id,
    kind: r.kind,
    reporter_id: r.reporterId,
    reported_user_id: r.reportedUserId,
    listing_id: r.listingId,
    con_id: r.conId,
    message_id: r.messageId,
    reason: r.reason,
    messages: r.messages.map((m) => chatMessage(m, formatTime)),
    created_at: new Date(r.createdAt).toISOString(),
  };
}
