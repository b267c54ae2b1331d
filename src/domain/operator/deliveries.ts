/**
 * The outboxes' deliveries as the operator sees them (docs/server-api.md, "Deliveries"): the
 * webhook, mail, push and Pusher outboxes, listed by status a page at a time, and a failed delivery
 * sent again. Shared by the server API's `deliveries` routes, `souk deliveries` and the console.
 *
 * A delivery is named by its outbox and its row's id, `webhook:12`, `mail:7`, `push:3`, `pusher:9`:
 * each outbox numbers its rows on its own, so the id alone would not say which row.
 */
import type { MailDelivery } from '../mail.js';
import type { WebhookDelivery } from '../ports.js';
import type { PushDelivery } from '../push.js';
import type { PusherDelivery } from '../pusher.js';
import { auditRecord, type Change, type OperatorDeps, type OperatorResult } from './context.js';

export const DELIVERY_KINDS = ['webhook', 'mail', 'push', 'pusher'] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];

/** What each outbox keeps: `failed` once its retries ran out, the only status a retry takes. */
export const DELIVERY_STATUSES: Record<DeliveryKind, readonly string[]> = {
  webhook: ['pending', 'delivered', 'failed'],
  mail: ['pending', 'sent', 'skipped', 'failed'],
  push: ['pending', 'sent', 'skipped', 'failed'],
  pusher: ['pending', 'sent', 'failed'],
};

export type Delivery =
  | { kind: 'webhook'; delivery: WebhookDelivery }
  | { kind: 'mail'; delivery: MailDelivery }
  | { kind: 'push'; delivery: PushDelivery }
  | { kind: 'pusher'; delivery: PusherDelivery };

export interface DeliveryRef {
  kind: DeliveryKind;
  id: number;
}

export const deliveryId = (ref: DeliveryRef): string => `${ref.kind}:${ref.id}`;

/** `webhook:12` and the like; undefined when the text names no delivery. */
export function parseDeliveryId(text: string): DeliveryRef | undefined {
  const match = /^(webhook|mail|push|pusher):([1-9]\d{0,15})$/.exec(text);
  if (!match || !Number.isSafeInteger(Number(match[2]))) return undefined;
  return { kind: match[1] as DeliveryKind, id: Number(match[2]) };
}

export interface DeliveryQuery {
  kind: DeliveryKind;
  /** One of DELIVERY_STATUSES[kind]; every status when absent. */
  status?: string;
  /** Those with a smaller id (the next page). */
  beforeId?: number;
  limit: number;
}

/** The outbox's deliveries, newest first; none where the store keeps no such outbox. */
export async function listDeliveries(deps: OperatorDeps, query: DeliveryQuery): Promise<Delivery[]> {
  const { kind, limit } = query;
  const status = query.status as never;
  const page = { limit, ...(query.status ? { status } : {}), ...(query.beforeId === undefined ? {} : { beforeId: query.beforeId }) };
  switch (kind) {
    case 'webhook':
      return ((await deps.webhooks?.list(page)) ?? []).map((delivery) => ({ kind, delivery }));
    case 'mail':
      return ((await deps.mailOutbox?.list(page)) ?? []).map((delivery) => ({ kind, delivery }));
    case 'push':
      return ((await deps.pushOutbox?.list(limit, page)) ?? []).map((delivery) => ({ kind, delivery }));
    case 'pusher':
      return ((await deps.pusherOutbox?.list(page)) ?? []).map((delivery) => ({ kind, delivery }));
  }
}

/** One delivery, or undefined. */
export async function findDelivery(deps: OperatorDeps, ref: DeliveryRef): Promise<Delivery | undefined> {
  // The newest row below id + 1: the row itself when it is there (a primary key seek).
  const [found] = await listDeliveries(deps, { kind: ref.kind, beforeId: ref.id + 1, limit: 1 });
  return found?.delivery.id === ref.id ? found : undefined;
}

/**
 * Sends a failed delivery again, due now, with a fresh count of attempts (a webhook also gets a
 * fresh retry window). The audit row is written in the same transaction as the change.
 */
export async function retryDelivery(deps: OperatorDeps, change: Change, ref: DeliveryRef): Promise<OperatorResult<{ delivery: Delivery }>> {
  const found = await findDelivery(deps, ref);
  if (!found) return { ok: false, error: 'no_such_delivery' };
  if (found.delivery.status !== 'failed') return { ok: false, error: 'not_failed', status: found.delivery.status };
  const audit = auditRecord(deps, change, { action: 'delivery.retry', targetKind: ref.kind, targetId: ref.id });
  const now = deps.now();
  const outbox = { webhook: deps.webhooks, mail: deps.mailOutbox, push: deps.pushOutbox, pusher: deps.pusherOutbox }[ref.kind]!;
  const n = await outbox.retry([ref.id], now, audit);
  const after = await findDelivery(deps, ref);
  if (n === 0) {
    if (!after) return { ok: false, error: 'no_such_delivery' };
    // Still failed: a mail about the same conversation is pending and carries its messages.
    return after.delivery.status === 'failed'
      ? { ok: false, error: 'superseded' }
      : { ok: false, error: 'not_failed', status: after.delivery.status };
  }
  return { ok: true, delivery: after ?? found };
}
