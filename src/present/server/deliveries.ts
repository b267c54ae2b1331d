/**
 * A delivery as the server API lists it (GET {SERVER_API_PREFIX}/deliveries): what the outbox
 * keeps of it, times in RFC 3339, never its payload (a message's text). `maskUrl` hides a
 * receiver address's password.
 */
import { deliveryId, type Delivery } from '../../domain/operator/deliveries.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function details(d: Delivery, maskUrl: (url: string) => string) {
  switch (d.kind) {
    case 'webhook':
      return { type: d.delivery.type, url: maskUrl(d.delivery.url), webhook_id: d.delivery.messageId };
    case 'mail':
      return { con_id: d.delivery.conId, first_message_id: d.delivery.firstMessageId, last_message_id: d.delivery.lastMessageId };
    case 'push':
      return { message_id: d.delivery.messageId };
    case 'pusher':
      return { event: d.delivery.name };
  }
}

function finishedAt(d: Delivery): number | null {
  switch (d.kind) {
    case 'webhook':
      return d.delivery.deliveredAt;
    case 'mail':
    case 'pusher':
      return d.delivery.sentAt;
    case 'push':
      return null;
  }
}

export const serverDelivery = (d: Delivery, maskUrl: (url: string) => string) => ({
  id: deliveryId({ kind: d.kind, id: d.delivery.id }),
  kind: d.kind,
  status: d.delivery.status,
  user_id: d.delivery.userId,
  attempts: d.delivery.attempts,
  created_at: iso(d.delivery.createdAt)!,
  next_attempt_at: iso(d.delivery.nextAttemptAt)!,
  sent_at: iso(finishedAt(d)),
  last_error: d.delivery.lastError,
  details: details(d, maskUrl),
});
