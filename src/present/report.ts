/** A report as the `report.created` webhook carries it: its messages in the message object of POST my/chat/message. */
import type { Report } from '../domain/reports.js';
import { chatMessage, type MessagePresentation } from './chat/message.js';

export function reportObject(r: Report, p: MessagePresentation) {
  return {
    report_id: r.id,
    kind: r.kind,
    reporter_id: r.reporterId,
    reported_user_id: r.reportedUserId,
    listing_id: r.listingId,
    con_id: r.conId,
    message_id: r.messageId,
    reason: r.reason,
    messages: r.messages.map((m) => chatMessage(m, p)),
    created_at: new Date(r.createdAt).toISOString(),
  };
}
