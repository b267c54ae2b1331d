/**
 * Push notifications: sends the push outbox to Expo's push service (EXPO_PUSH_URL), one request
 * per new message with one Expo message per device of its recipient, in the plugin's payload:
 *
 *   {"to": "<token>", "title": "<the sender's name>", "body": "<the text, cut>",
 *    "data": {"url": "<scheme>://conversation/<con_id>/<listing_id>"}, "sound": "default"}
 *
 * The outbox row is written in the message's transaction (store/common/push.ts), one per message
 * and recipient, so a message is pushed once whatever the client retries, and a crash between the
 * write and the send pushes after the restart (at least once: a crash after Expo took it and
 * before the row was marked pushes it again). No push while the recipient has the conversation in
 * view: an event stream open in this process, or GET my/chat/conversation for it within
 * VIEW_WINDOW_MS on this instance (RecentViews); the state is per instance, in memory.
 *
 * Expo answers one ticket per message; a ticket with `DeviceNotRegistered` drops its token, and so
 * does a receipt that says so, asked for later (push-receipts.ts). Any
 * other answer than 200 with the tickets (no answer, 429, 5xx) is retried with backoff for
 * PUSH_RETRY_FOR_S, then the row is kept as failed.
 *
 * A device whose token is an FCM registration token gets the same push through FCM HTTP v1
 * (fcm.ts), one request per device; UNREGISTERED or INVALID_ARGUMENT drops the token, no answer,
 * 429 (not before its Retry-After) and 5xx are retried as Expo's are. An attempt that reached some
 * devices and not others records which it reached (`reached`, a digest of each token): the
 * retry pushes to the others only, so each device gets a message once.
 *
 * Plain fetch rather than `expo-server-sdk`: the SDK takes its address from the EXPO_BASE_URL
 * environment variable when the module loads (documented as for Expo's own testing, and only the
 * host: the path is fixed), where Souk's settings are declared and checked in one place
 * (config.ts); it cannot time a request out, and it retries 429 by itself, which the outbox does
 * already. The format is Expo's documented HTTP/2 API: a JSON array of messages, `{data: [tickets]}`.
 */
import { createHash } from 'node:crypto';
import { uploadsInWords } from '../domain/files/message-files.js';
import type { Message } from '../domain/model.js';
import type { Repositories } from '../domain/ports.js';
import { pushService, type ConversationViews, type PushDelivery, type PushDeviceRepository, type PushOutbox } from '../domain/push.js';
import type { FcmClient, FcmOutcome } from './fcm.js';
import type { PushReceipts } from './push-receipts.js';
import { nextAttempt } from './webhooks.js';
import { DrainLoop } from './drain-loop.js';

/** How long a read of a conversation (GET my/chat/conversation) counts as having it open. */
export const VIEW_WINDOW_MS = 15_000;
/** Most (user, conversation) reads remembered per instance; beyond them the oldest is forgotten. */
const VIEWS_TRACKED = 50_000;
/** A push's body: the message text, at most this many characters. */
export const PUSH_BODY_MAX = 178;

/**
 * The conversations each user read lately, in this process: bounded (the least recently read
 * goes first), and anything older than the window is as good as absent.
 */
export class RecentViews implements ConversationViews {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly windowMs = VIEW_WINDOW_MS,
    private readonly max = VIEWS_TRACKED,
  ) {}

  viewed(userId: number, conId: number, at: number): void {
    const key = `${userId}:${conId}`;
    // Re-inserted, so that the Map's order is the order of the last reads.
    this.seen.delete(key);
    this.seen.set(key, at);
    if (this.seen.size > this.max) this.seen.delete(this.seen.keys().next().value!);
  }

  recent(userId: number, conId: number, now: number): boolean {
    const at = this.seen.get(`${userId}:${conId}`);
    return at !== undefined && now - at < this.windowMs;
  }

  get size(): number {
    return this.seen.size;
  }
}

export interface PushSenderOptions {
  outbox: PushOutbox;
  devices: PushDeviceRepository;
  /** The sender's name and the conversation's listing. */
  repos: Pick<Repositories, 'users' | 'conversations'>;
  /** True while the user has the conversation in view: then nothing is pushed. */
  inView: (userId: number, conId: number, now: number) => boolean;
  url: string;
  accessToken?: string;
  appScheme: string;
  retryForMs: number;
  retryBaseMs: number;
  timeoutMs: number;
  /** How often the outbox is looked at. */
  pollMs?: number;
  /** Where the tickets Expo accepted are checked for their receipts. */
  receipts?: PushReceipts;
  /** FCM, when a service account is configured: the devices with FCM tokens are pushed through it. */
  fcm?: FcmClient;
  now?: () => number;
  onError?: (err: unknown, what: string) => void;
}

export interface ExpoMessage {
  to: string;
  title: string;
  body: string;
  data: { url: string };
  sound: 'default';
}

const BATCH = 20;
const PRUNE_EVERY_MS = 60_000;
/** Finished rows are kept this long (to see what was pushed), then pruned. */
const KEEP_FINISHED_MS = 86_400_000;

/** A device as the outbox's `reached` names it: not the token itself, which reaches the user's phone. */
export const deviceMark = (token: string): string => createHash('sha256').update(token).digest('base64url').slice(0, 16);

/** What one attempt did, across Expo's request and FCM's. */
interface AttemptResult {
  /** Tokens the services said are dead: dropped. */
  gone: string[];
  /** Tokens done with this attempt (taken, dead or refused): not pushed again. */
  done: string[];
  /** Notes for the outbox (never a token). */
  problems: string[];
  /** Why some devices are to be tried again; empty when none. */
  retry: string[];
  /** FCM's Retry-After, the longest asked. */
  retryAfterMs: number;
}

/** The text cut to `max` characters (whole code points), with an ellipsis when cut. */
export function pushBody(message: Pick<Message, 'text' | 'attachments'>, max = PUSH_BODY_MAX): string {
  const text = message.text.trim();
  if (text === '') {
    const uploads = uploadsInWords(message.attachments);
    if (uploads !== undefined)
      return Array.from(uploads).length <= max
        ? uploads
        : `${Array.from(uploads)
            .slice(0, max - 1)
            .join('')}…`;
    const files = message.attachments?.length ?? 0;
    return files > 1 ? `Sent ${files} files` : 'Sent a file';
  }
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

export class PushSender {
  private readonly loop: DrainLoop;
  private readonly now: () => number;

  constructor(private readonly o: PushSenderOptions) {
    this.now = o.now ?? Date.now;
    this.loop = new DrainLoop({
      drain: () => this.drain(),
      pollMs: o.pollMs ?? 1000,
      prune: { run: () => this.prune(), everyMs: PRUNE_EVERY_MS },
    });
  }

  start(): void {
    this.o.receipts?.start();
    this.loop.start();
  }

  /** Looks at the outbox now (and again after, when a look is already under way). */
  kick(): void {
    this.loop.kick();
  }

  /** Stops polling and waits for the pushes under way. */
  async stop(): Promise<void> {
    await Promise.all([this.loop.stop(), this.o.receipts?.stop()]);
  }

  async prune(): Promise<void> {
    try {
      await this.o.outbox.prune(this.now() - KEEP_FINISHED_MS);
    } catch (err) {
      this.o.onError?.(err, 'pruning the push outbox');
    }
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        const now = this.now();
        const due = await this.o.outbox.claimDue(now, now + this.o.timeoutMs + 1000, BATCH);
        await Promise.all(due.map((d) => this.deliver(d)));
        if (due.length < BATCH || this.loop.stopped) return;
      }
    } catch (err) {
      this.o.onError?.(err, 'reading the push outbox');
    }
  }

  /** The messages of a delivery to the devices it has not reached yet, or why there are none. */
  private async messagesOf(d: PushDelivery): Promise<{ messages: ExpoMessage[] } | { skip: string }> {
    const message = (JSON.parse(d.payload) as { message: Message }).message;
    if (this.o.inView(d.userId, message.conId, this.now())) return { skip: 'conversation in view' };
    const reached = new Set(d.reached);
    // FCM's devices without FCM configured stay (they are reached once it is).
    const tokens = (await this.o.devices.tokensOf(d.userId)).filter(
      (t) => !reached.has(deviceMark(t)) && (this.o.fcm !== undefined || pushService(t) === 'expo'),
    );
    if (tokens.length === 0) return { skip: 'no device' };
    const [conversation, sender, recipient] = await Promise.all([
      this.o.repos.conversations.findById(message.conId),
      this.o.repos.users.findById(message.sourceId),
      this.o.repos.users.findById(d.userId),
    ]);
    if (!conversation) return { skip: 'no conversation' };
    // Asked when the push is sent: a sender disabled or erased since the message is not pushed, as not mailed (domain/mail.ts).
    if (!sender || sender.disabled) return { skip: 'sender disabled' };
    if (!recipient || recipient.disabled) return { skip: 'recipient disabled' };
    const title = sender.name.trim() || sender.login || 'New message';
    const body = pushBody(message);
    const url = `${this.o.appScheme}://conversation/${message.conId}/${conversation.listingId}`;
    return { messages: tokens.map((to) => ({ to, title, body, data: { url }, sound: 'default' })) };
  }

  private async deliver(d: PushDelivery): Promise<void> {
    let result: AttemptResult;
    try {
      const built = await this.messagesOf(d);
      if ('skip' in built) {
        await this.o.outbox.finished(d.id, d.reached.length > 0 ? 'sent' : 'skipped', d.reached.length > 0 ? null : built.skip);
        return;
      }
      const expo = built.messages.filter((m) => pushService(m.to) === 'expo');
      const fcm = built.messages.filter((m) => pushService(m.to) === 'fcm');
      const results = await Promise.all([this.sendExpo(d.userId, expo), ...fcm.map((m) => this.sendFcm(m))]);
      result = results.reduce(merge);
      if (result.gone.length > 0) await this.o.devices.drop(d.userId, result.gone);
      if (result.retry.length === 0) {
        const gone = result.gone.length > 0 ? [`${result.gone.length} device(s) not registered, dropped`] : [];
        const note = [...gone, ...result.problems];
        await this.o.outbox.finished(d.id, 'sent', note.length > 0 ? note.join('; ') : null);
        return;
      }
    } catch (err) {
      result = { gone: [], done: [], problems: [], retry: [String((err as Error)?.message ?? err)], retryAfterMs: 0 };
    }
    const attempts = d.attempts + 1;
    const window = { retryBaseMs: this.o.retryBaseMs, retryForMs: this.o.retryForMs };
    const now = this.now();
    const backoff = nextAttempt({ windowFrom: d.createdAt }, attempts, now, window);
    const retryAt = backoff === null ? null : Math.max(backoff, now + result.retryAfterMs);
    const reached = [...new Set([...d.reached, ...result.done.map(deviceMark)])];
    try {
      await this.o.outbox.attemptFailed(d.id, attempts, retryAt, result.retry.join('; '), reached);
    } catch (err) {
      this.o.onError?.(err, 'recording a failed push');
    }
  }

  /** The Expo devices' messages in one request: a failed request leaves them all to retry. */
  private async sendExpo(userId: number, messages: ExpoMessage[]): Promise<AttemptResult> {
    const result: AttemptResult = { gone: [], done: [], problems: [], retry: [], retryAfterMs: 0 };
    if (messages.length === 0) return result;
    const tokens = messages.map((m) => m.to);
    const tickets = await this.send(messages);
    if (typeof tickets === 'string') return { ...result, retry: [tickets] };
    const accepted: { ticketId: string; token: string }[] = [];
    tickets.forEach((ticket, i) => {
      if (ticket?.status === 'ok' && typeof ticket.id === 'string') accepted.push({ ticketId: ticket.id, token: tokens[i]! });
      if (ticket?.status !== 'error') return;
      const code = ticket.details?.error ?? ticket.message ?? 'error';
      if (code === 'DeviceNotRegistered') result.gone.push(tokens[i]!);
      // The token itself is not recorded: it is what reaches the user's phone.
      else result.problems.push(`device ${i + 1}: ${String(code).slice(0, 100)}`);
    });
    this.o.receipts?.track(userId, accepted);
    return { ...result, done: tokens };
  }

  private async sendFcm(m: ExpoMessage): Promise<AttemptResult> {
    const outcome: FcmOutcome = await this.o.fcm!.send({ token: m.to, title: m.title, body: m.body, url: m.data.url });
    const result: AttemptResult = { gone: [], done: [m.to], problems: [], retry: [], retryAfterMs: 0 };
    if (outcome.kind === 'gone') return { ...result, gone: [m.to] };
    if (outcome.kind === 'refused') return { ...result, problems: [outcome.error] };
    if (outcome.kind === 'retry') return { ...result, done: [], retry: [outcome.error], retryAfterMs: outcome.afterMs ?? 0 };
    return result;
  }

  /** POSTs the messages; Expo's tickets, one per message, or what went wrong. */
  private async send(messages: ExpoMessage[]): Promise<ExpoTicket[] | string> {
    let res: Response;
    try {
      res = await fetch(this.o.url, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          'user-agent': 'Souk-Push/1',
          ...(this.o.accessToken ? { authorization: `Bearer ${this.o.accessToken}` } : {}),
        },
        body: JSON.stringify(messages),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.o.timeoutMs),
      });
    } catch (err) {
      return (err as Error)?.name === 'TimeoutError' ? `no answer within ${this.o.timeoutMs} ms` : String((err as Error)?.cause ?? err);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      return `the answer could not be read: ${String((err as Error)?.message ?? err)}`;
    }
    if (res.status !== 200) return `HTTP ${res.status}${expoErrors(text)}`;
    let data: unknown;
    try {
      data = (JSON.parse(text) as { data?: unknown }).data;
    } catch {
      return 'the answer is not JSON';
    }
    if (!Array.isArray(data) || data.length !== messages.length) return `expected ${messages.length} ticket(s)${expoErrors(text)}`;
    return data as ExpoTicket[];
  }
}

function merge(a: AttemptResult, b: AttemptResult): AttemptResult {
  return {
    gone: [...a.gone, ...b.gone],
    done: [...a.done, ...b.done],
    problems: [...a.problems, ...b.problems],
    retry: [...a.retry, ...b.retry],
    retryAfterMs: Math.max(a.retryAfterMs, b.retryAfterMs),
  };
}

interface ExpoTicket {
  status?: string;
  id?: string;
  message?: string;
  details?: { error?: string };
}

/** The first request-level error Expo named (`{errors: [{code, message}]}`), for the outbox's last_error. */
function expoErrors(text: string): string {
  try {
    const first = (JSON.parse(text) as { errors?: Array<{ code?: string; message?: string }> }).errors?.[0];
    return first ? `: ${String(first.code ?? '')} ${String(first.message ?? '')}`.slice(0, 300) : '';
  } catch {
    return '';
  }
}
