/** A report as the server API lists it (GET {SERVER_API_PREFIX}/reports): every field, times in RFC 3339. */
import type { Report } from '../../domain/reports.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const serverReport = (r: Report) => ({
  id: r.id,
  status: r.closedAt === null ? ('open' as const) : ('closed' as const),
  kind: r.kind,
  reporter_id: r.reporterId,
  reported_user_id: r.reportedUserId,
  listing_id: r.listingId,
  con_id: r.conId,
  message_id: r.messageId,
  reason: r.reason,
  messages: r.messages.map((m) => ({ id: m.id, sender_id: m.sourceId, text: m.text, created_at: iso(m.createdAt) })),
  created_at: iso(r.createdAt)!,
  closed_at: iso(r.closedAt),
});
