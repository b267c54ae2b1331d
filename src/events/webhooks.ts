/**
 * Delivers the webhook outbox (WEBHOOK_URLS): each row POSTed as JSON, signed per Standard
 * Webhooks by the `standardwebhooks` library (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`), until the receiver answers 2xx. A failed attempt is retried after
 * WEBHOOK_RETRY_BASE_MS, twice as long each time (at most an hour), for WEBHOOK_RETRY_FOR_S; then
 * the row is kept as failed (`souk webhooks retry`). At least once: a row is marked delivered only
 * after the answer, so a crash between the two sends it again (same `webhook-id`).
 *
 * The body: `{"type", "timestamp" (the event's, RFC 3339), "user_id" (whose event it is), "data"}`,
 * `data` the payload the stream carries (payloads.ts). The secret is never logged.
 */
import { Webhook } from 'standardwebhooks';
import type { DomainEvent } from '../domain/events.js';
import type { WebhookDelivery, WebhookOutbox } from '../domain/ports.js';
import type { Presentation } from '../present/presentation.js';
import { payloadJson } from './payloads.js';
import { DrainLoop } from './drain-loop.js';

export interface WebhookSenderOptions {
  outbox: WebhookOutbox;
  /** `whsec_...` */
  secret: string;
  presentation: Presentation;
  retryForMs: number;
  retryBaseMs: number;
  timeoutMs: number;
  /** Delivered rows older than this are deleted (WEBHOOK_RETENTION_S). */
  retentionMs: number;
  /** How often the outbox is looked at. */
  pollMs?: number;
  now?: () => number;
  onError?: (err: unknown, what: string) => void;
}

const BATCH = 20;
const PRUNE_EVERY_MS = 3_600_000;
const MAX_BACKOFF_MS = 3_600_000;

/** The JSON body of a delivery. */
export function webhookBody(d: Pick<WebhookDelivery, 'type' | 'createdAt' | 'userId' | 'payload'>, p: Presentation): string {
  const data = payloadJson(JSON.parse(d.payload) as DomainEvent, p);
  return `{"type":${JSON.stringify(d.type)},"timestamp":"${new Date(d.createdAt).toISOString()}","user_id":${d.userId},"data":${data}}`;
}

/** When a delivery that failed `attempts` times is tried again; null when its window is over. */
export function nextAttempt(
  d: Pick<WebhookDelivery, 'windowFrom'>,
  attempts: number,
  now: number,
  o: Pick<WebhookSenderOptions, 'retryBaseMs' | 'retryForMs'>,
) {
  const wait = Math.min(o.retryBaseMs * 2 ** Math.min(attempts - 1, 40), MAX_BACKOFF_MS);
  // A little jitter, so that the deliveries a receiver's outage held back do not all come back at once.
  const at = now + Math.round(wait * (0.9 + Math.random() * 0.2));
  return at - d.windowFrom > o.retryForMs ? null : at;
}

export class WebhookSender {
  private readonly signer: Webhook;
  private readonly loop: DrainLoop;
  private readonly now: () => number;

  constructor(private readonly o: WebhookSenderOptions) {
    this.signer = new Webhook(o.secret);
    this.loop = new DrainLoop({
      drain: () => this.drain(),
      pollMs: o.pollMs ?? 1000,
      prune: { run: () => this.prune(), everyMs: PRUNE_EVERY_MS },
    });
    this.now = o.now ?? Date.now;
  }

  start(): void {
    this.loop.start();
    void this.prune();
  }

  /** Deletes the deliveries done for longer than the retention: what users wrote leaves the outbox. */
  async prune(): Promise<void> {
    try {
      await this.o.outbox.prune(this.now() - this.o.retentionMs);
    } catch (err) {
      this.o.onError?.(err, 'pruning the webhook outbox');
    }
  }

  /** Looks at the outbox now (and again after, when a look is already under way). */
  kick(): void {
    this.loop.kick();
  }

  /** Stops polling and waits for the deliveries under way. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        const now = this.now();
        // Leased for one attempt and a margin: an instance that dies mid-send leaves it to the others.
        const due = await this.o.outbox.claimDue(now, now + this.o.timeoutMs + 1000, BATCH);
        await Promise.all(due.map((d) => this.deliver(d)));
        if (due.length < BATCH || this.loop.stopped) return;
      }
    } catch (err) {
      this.o.onError?.(err, 'reading the webhook outbox');
    }
  }

  private async deliver(d: WebhookDelivery): Promise<void> {
    let error: string;
    try {
      const body = webhookBody(d, this.o.presentation);
      const sentAt = new Date(this.now());
      const res = await fetch(d.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Souk-Webhooks/1',
          'webhook-id': d.messageId,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': this.signer.sign(d.messageId, sentAt, body),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.o.timeoutMs),
      });
      // The answer's body is not read: only its status counts.
      await res.body?.cancel().catch(() => {});
      if (res.status >= 200 && res.status < 300) {
        await this.o.outbox.delivered(d.id, this.now());
        return;
      }
      error = `HTTP ${res.status}`;
    } catch (err) {
      error = (err as Error)?.name === 'TimeoutError' ? `no answer within ${this.o.timeoutMs} ms` : String((err as Error)?.cause ?? err);
    }
    const attempts = d.attempts + 1;
    try {
      await this.o.outbox.attemptFailed(d.id, attempts, nextAttempt(d, attempts, this.now(), this.o), error);
    } catch (err) {
      this.o.onError?.(err, 'recording a failed webhook delivery');
    }
  }
}
