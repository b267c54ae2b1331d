/**
 * E-mail when a message waits (docs/mail.md): sends the mail outbox over SMTP. A row is one
 * recipient's pending mail about one conversation, written in the message's transaction
 * (store/common/mail.ts) due MAIL_DELAY_S after its first message; messages that come meanwhile
 * join it. When it is due:
 *
 * - within MAIL_MIN_INTERVAL_S of the last mail about the conversation to that recipient, it waits;
 * - not to be mailed (mayMail: no address, disabled, conversation deleted, mail turned off), the
 *   recipient online (events/presence.ts), or every message in it read: skipped, no mail;
 * - else one mail with the unread messages in it; SMTP failures are retried with backoff for
 *   MAIL_RETRY_FOR_S, then kept as failed (`souk mail retry`).
 *
 * Exactly one sender works on a row at a time: its claim leases it (FOR UPDATE SKIP LOCKED on
 * PostgreSQL and MySQL), and a crash before the row is marked leaves it to be claimed again once
 * the lease has passed (at least once: a crash after the SMTP server took the mail and before the
 * row was marked sends it again).
 */
import { DrainLoop } from './drain-loop.js';
import {
  mayMail,
  type MailDelivery,
  type MailStats,
  type MailOutbox,
  type MailPreferenceRepository,
  type MailSenderIdentity,
} from '../domain/mail.js';
import type { Conversation, Listing } from '../domain/model.js';
import type { Repositories } from '../domain/ports.js';
import { composeWaitingMail } from './mail-message.js';
import type { MailTransport } from './mail-transport.js';
import { nextAttempt } from './webhooks.js';

/** Most messages shown in one mail: the newest. */
export const MAIL_MESSAGES_SHOWN = 20;
const BATCH = 10;
const PRUNE_EVERY_MS = 3_600_000;
/** Finished mails are kept this long (souk mail list shows them), then pruned. */
const KEEP_FINISHED_MS = 30 * 86_400_000;

export interface MailSenderOptions {
  outbox: MailOutbox;
  repos: Repositories;
  preferences: MailPreferenceRepository;
  isOnline: (userId: number, now: number) => Promise<boolean>;
  transport: MailTransport;
  from: MailSenderIdentity;
  siteTitle: string;
  listingUrl: (listing: Listing) => string;
  conversationUrl: (conversation: Conversation) => string;
  unsubscribeUrl: (userId: number) => string;
  delayMs: number;
  minIntervalMs: number;
  retryBaseMs: number;
  retryForMs: number;
  timeoutMs: number;
  pollMs?: number;
  now?: () => number;
  onError?: (err: unknown, what: string) => void;
}

type Outcome = { sent: true } | { skip: string } | { wait: number };

export class MailSender {
  readonly stats: MailStats = { sent: 0, skipped: 0, failedAttempts: 0, failed: 0 };
  private readonly loop: DrainLoop;
  private readonly now: () => number;

  constructor(private readonly o: MailSenderOptions) {
    this.now = o.now ?? Date.now;
    this.loop = new DrainLoop({
      drain: () => this.drain(),
      pollMs: o.pollMs ?? 1000,
      prune: { run: () => this.prune(), everyMs: PRUNE_EVERY_MS },
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Looks at the outbox now (and again after, when a look is already under way). */
  kick(): void {
    this.loop.kick();
  }

  /** Stops polling, waits for the mails under way, and closes the SMTP connections. */
  async stop(): Promise<void> {
    await this.loop.stop();
    this.o.transport.close();
  }

  async prune(): Promise<void> {
    try {
      await this.o.outbox.prune(this.now() - KEEP_FINISHED_MS);
    } catch (err) {
      this.o.onError?.(err, 'pruning the mail outbox');
    }
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        const now = this.now();
        // The lease outlasts an SMTP exchange's timeouts (connection, greeting, each command).
        const due = await this.o.outbox.claimDue(now, now + 4 * this.o.timeoutMs + 1000, BATCH);
        for (const d of due) await this.deliver(d);
        if (due.length < BATCH || this.loop.stopped) return;
      }
    } catch (err) {
      this.o.onError?.(err, 'reading the mail outbox');
    }
  }

  private async deliver(d: MailDelivery): Promise<void> {
    let outcome: Outcome;
    try {
      outcome = await this.attempt(d);
    } catch (err) {
      await this.failed(d, err);
      return;
    }
    try {
      const now = this.now();
      if ('wait' in outcome) await this.o.outbox.postpone(d.id, outcome.wait);
      else if ('skip' in outcome) {
        this.stats.skipped++;
        await this.o.outbox.finish(d.id, 'skipped', outcome.skip, d.lastMessageId, now, now + this.o.delayMs);
      } else {
        this.stats.sent++;
        await this.o.outbox.finish(d.id, 'sent', null, d.lastMessageId, now, now + this.o.minIntervalMs);
      }
    } catch (err) {
      this.o.onError?.(err, `recording mail ${d.id}`);
    }
  }

  /** Decides, and sends when it is to be sent. */
  private async attempt(d: MailDelivery): Promise<Outcome> {
    const { repos } = this.o;
    const now = this.now();
    const last = await this.o.outbox.lastSentAt(d.userId, d.conId);
    if (last !== undefined && now < last + this.o.minIntervalMs) return { wait: last + this.o.minIntervalMs };
    const conversation = await repos.conversations.findById(d.conId);
    if (!conversation) return { skip: 'no conversation' };
    const senderId = conversation.senderId === d.userId ? conversation.recipientId : conversation.senderId;
    const [recipient, sender] = await Promise.all([repos.users.findById(d.userId), repos.users.findById(senderId)]);
    const refusal = await mayMail(repos, this.o.preferences, recipient, sender, conversation);
    if (refusal) return { skip: refusal };
    if (await this.o.isOnline(d.userId, now)) return { skip: 'recipient online' };
    const page = await repos.messages.pageOf(d.conId, d.firstMessageId - 1, 0, 200);
    const unread = page.filter((m) => m.id <= d.lastMessageId && m.sourceId === senderId && !m.isRead).reverse();
    if (unread.length === 0) return { skip: 'read' };
    const listing = await repos.listings.findById(conversation.listingId);
    const shown = unread.slice(-MAIL_MESSAGES_SHOWN);
    const mail = composeWaitingMail({
      siteTitle: this.o.siteTitle,
      from: this.o.from,
      recipient: recipient!,
      sender: sender!,
      listing,
      listingUrl: listing ? this.o.listingUrl(listing) : undefined,
      conversationUrl: this.o.conversationUrl(conversation),
      unsubscribeUrl: this.o.unsubscribeUrl(d.userId),
      messages: shown,
      more: unread.length - shown.length,
    });
    await this.o.transport.send(mail);
    return { sent: true };
  }

  private async failed(d: MailDelivery, err: unknown): Promise<void> {
    const error = String((err as Error)?.message ?? err).slice(0, 300);
    this.stats.failedAttempts++;
    const attempts = d.attempts + 1;
    const retryAt = nextAttempt({ windowFrom: d.createdAt }, attempts, this.now(), this.o);
    if (retryAt === null) this.stats.failed++;
    this.o.onError?.(new Error(error), `sending mail ${d.id} (attempt ${attempts}${retryAt === null ? ', kept as failed' : ''})`);
    try {
      await this.o.outbox.attemptFailed(d.id, attempts, retryAt, error);
    } catch (e) {
      this.o.onError?.(e, 'recording a failed mail');
    }
  }
}
