/**
 * Live events on the site's Pusher Channels app (docs/pusher.md): sends the Pusher outbox through
 * Pusher's HTTP API, signed by the official `pusher` library, in batches (`batch_events`, at most
 * 10 events a request), each event on its user's channel in the plugin's names and shapes
 * (present/pusher.ts).
 *
 * The outbox row is written in the change's transaction (store/common/events.ts), so Pusher down
 * or slow never slows a request and a crash between the write and the send publishes after the
 * restart (at least once: a crash after Pusher took a batch and before its rows were marked sends
 * it again). No answer, 429 and 5xx are retried with backoff for PUSHER_RETRY_FOR_S (a live event
 * much later is noise), then the row is kept as failed; any other 4xx is not retried and its
 * answer is logged once. An event whose data is over Pusher's 10 KB is sent without what makes it
 * big (present/pusher.ts, trimmedSteps) and counted.
 *
 * Which app: on a WordPress site, the site's `rtcl_chat_settings` (on or off, key, secret, app id,
 * cluster), read again every SETTINGS_REFRESH_MS, PUSHER_URL's scheme, host and port replacing
 * Pusher's own host when set (a self-hosted Pusher-protocol server); elsewhere PUSHER_URL's app.
 * None, and nothing is recorded or sent (LivePusherApp).
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import Pusher from 'pusher';
import type { DomainEvent } from '../domain/events.js';
import { latestRead } from '../domain/latest-read.js';
import {
  channelOf,
  type PusherApp,
  type PusherChannels,
  type PusherDelivery,
  type PusherOutbox,
  type PusherQueueing,
  type PusherStats,
  type SitePusherApp,
} from '../domain/pusher.js';
import type { Presentation } from '../present/presentation.js';
import { pusherConversation, pusherMessage, trimmedSteps } from '../present/pusher.js';
import { DrainLoop } from './drain-loop.js';
import { triggerBatch, type PusherRequestFailure, type PusherTarget } from './pusher-http.js';
import { nextAttempt } from './webhooks.js';

/** Pusher's limit on an event's data, in bytes. */
export const PUSHER_DATA_MAX_BYTES = 10_240;
/** Pusher's limit on the events of one batch_events request. */
export const PUSHER_BATCH_MAX = 10;
/** Rows claimed per look at the outbox: enough for every lane to fill a few batches. */
export const PUSHER_CLAIM = 200;
/**
 * batch_events requests in flight at once, each lane on a connection kept open: one request at a
 * time on one connection cannot keep up with a busy server's events.
 */
export const PUSHER_LANES = 4;
const PRUNE_EVERY_MS = 60_000;
/** Finished rows are kept this long (`souk pusher list`), then pruned. */
const KEEP_FINISHED_MS = 86_400_000;
/** Most latencies kept between two scrapes of /metrics. */
const LATENCIES_KEPT = 10_000;

/** The app a site's settings name: Pusher's own host for its cluster, as pusher-php-server built with a cluster posts to. */
export function siteApp(site: SitePusherApp): PusherApp {
  return { ...site, host: `api-${site.cluster}.pusher.com`, port: undefined, useTLS: true };
}

/**
 * The Pusher app in effect: PUSHER_URL's, or a site's (followed). It is what the recorder asks
 * (`on`) before writing Pusher rows, and what the sender and POST pusher/auth sign with.
 */
export class LivePusherApp implements PusherQueueing {
  private app: PusherApp | undefined;
  private client: Pusher | undefined;
  /** Kept-alive connections to the app's host; without one, node-fetch closes each after its request. */
  private agent: HttpAgent | undefined;
  private timer: NodeJS.Timeout | undefined;
  private site: (() => Promise<SitePusherApp | undefined>) | undefined;

  constructor(
    private readonly o: {
      fixed: PusherApp | undefined;
      /** Told each time the app becomes set (public channels: the start-up warning). */
      onSet?: (app: PusherApp) => void;
      onError?: (err: unknown, what: string) => void;
    },
  ) {
    this.set(o.fixed);
  }

  on(): boolean {
    return this.app !== undefined;
  }

  current(): PusherTarget | undefined {
    return this.app && this.client && this.agent ? { app: this.app, client: this.client, agent: this.agent } : undefined;
  }

  /** A site's app: read now, then again every `everyMs`; PUSHER_URL then names only where it is. */
  async follow(site: () => Promise<SitePusherApp | undefined>, everyMs: number): Promise<void> {
    this.site = site;
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), everyMs);
    this.timer.unref();
  }

  async refresh(): Promise<void> {
    if (!this.site) return;
    try {
      await this.readSite();
    } catch (err) {
      this.o.onError?.(err, "reading the site's Pusher settings");
    }
  }

  /** An earlier read that ends after a later one does not bring back the site's older app. */
  private readonly readSite = latestRead(
    async () => this.site?.(),
    (site) => {
      const at = this.o.fixed;
      this.set(site && (at ? { ...siteApp(site), host: at.host, port: at.port, useTLS: at.useTLS } : siteApp(site)));
    },
  );

  stop(): void {
    clearInterval(this.timer);
    this.agent?.destroy();
  }

  private set(app: PusherApp | undefined): void {
    const same = JSON.stringify(app) === JSON.stringify(this.app);
    if (same) return;
    this.app = app;
    this.agent?.destroy();
    const agentOptions = { keepAlive: true, maxSockets: PUSHER_LANES };
    this.agent = app && (app.useTLS ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions));
    // Signs the requests (pusher-http.ts) and POST pusher/auth's answers; the requests go on the agent.
    this.client =
      app &&
      new Pusher({
        appId: app.appId,
        key: app.key,
        secret: app.secret,
        host: app.host,
        ...(app.port !== undefined && { port: String(app.port) }),
        useTLS: app.useTLS,
      });
    if (app) this.o.onSet?.(app);
  }
}

export interface PusherSenderOptions {
  outbox: PusherOutbox;
  apps: LivePusherApp;
  channels: PusherChannels;
  presentation: Presentation;
  retryForMs: number;
  retryBaseMs: number;
  timeoutMs: number;
  pollMs?: number;
  now?: () => number;
  /** A refused event (a 4xx other than 429): logged once, with Pusher's answer. */
  onRefused?: (text: string) => void;
  onError?: (err: unknown, what: string) => void;
}

interface BuiltEvent {
  delivery: PusherDelivery;
  channel: string;
  name: string;
  data: string;
  trimmed: boolean;
}

/** The event's data for its user, in the plugin's shape. `unreadTotal` is read when the event is sent: the count then. */
export async function pusherData(d: PusherDelivery, p: Presentation, unreadTotal: (userId: number) => Promise<number>): Promise<object> {
  const event = JSON.parse(d.payload) as DomainEvent;
  switch (event.type) {
    case 'conversation.new':
      return { conversation: pusherConversation(event.started, d.userId, p) };
    case 'message.new':
    case 'message.update':
    case 'message.removed':
      return { message: pusherMessage(event.message, p) };
    case 'conversation.unread':
      return { user_id: event.userId, count: await unreadTotal(event.userId), conversation_id: event.conversationId };
    case 'conversation.left':
      return { conversation: { con_id: event.conversationId } };
    default:
      throw new Error(`no Pusher event for ${event.type}`);
  }
}

const bytes = (text: string) => Buffer.byteLength(text);

/** The data as JSON text at most PUSHER_DATA_MAX_BYTES long, trimmed when it must be; undefined when even trimmed it is not. */
export function fittedData(data: object): { text: string; trimmed: boolean } | undefined {
  let text = JSON.stringify(data);
  if (bytes(text) <= PUSHER_DATA_MAX_BYTES) return { text, trimmed: false };
  for (const step of trimmedSteps(data)) {
    step();
    text = JSON.stringify(data);
    if (bytes(text) <= PUSHER_DATA_MAX_BYTES) return { text, trimmed: true };
  }
  return undefined;
}

export class PusherSender {
  readonly stats: PusherStats = { sent: 0, trimmed: 0, failedAttempts: 0, failed: 0, latencies: [] };
  private readonly loop: DrainLoop;
  private readonly now: () => number;

  constructor(private readonly o: PusherSenderOptions) {
    this.now = o.now ?? Date.now;
    this.loop = new DrainLoop({
      drain: () => this.drain(),
      // Not kicked by each commit: under load that is a claim per request; a look every 100 ms takes a batch.
      pollMs: o.pollMs ?? 100,
      prune: { run: () => this.prune(), everyMs: PRUNE_EVERY_MS },
    });
  }

  start(): void {
    this.loop.start();
  }

  kick(): void {
    this.loop.kick();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** The latencies observed since the last call (the metrics' histogram takes them). */
  takeLatencies(): number[] {
    return this.stats.latencies.splice(0);
  }

  async prune(): Promise<void> {
    try {
      await this.o.outbox.prune(this.now() - KEEP_FINISHED_MS);
    } catch (err) {
      this.o.onError?.(err, 'pruning the Pusher outbox');
    }
  }

  /**
   * Claims, builds and sends until the outbox has nothing due. A claim's events go out in
   * PUSHER_LANES lanes at once, a user's events all in one lane, in order: a channel's events
   * reach Pusher in the order they were recorded, as with one request at a time.
   */
  private async drain(): Promise<void> {
    const app = this.o.apps.current();
    if (!app) return;
    try {
      for (;;) {
        const now = this.now();
        // Leased for every batch's attempt one after the other (one user's events fill one lane) and a
        // margin: an instance that dies mid-send leaves them to the others.
        const lease = Math.ceil(PUSHER_CLAIM / PUSHER_BATCH_MAX) * this.o.timeoutMs + 1000;
        const due = await this.o.outbox.claimDue(now, now + lease, PUSHER_CLAIM);
        const taken: BuiltEvent[] = [];
        await Promise.all(lanesOf(await this.build(due)).map((lane) => this.sendLane(app, lane, taken)));
        await this.markSent(taken);
        if (due.length < PUSHER_CLAIM || this.loop.stopped) return;
      }
    } catch (err) {
      this.o.onError?.(err, 'reading the Pusher outbox');
    }
  }

  /**
   * Each delivery's event; one whose data cannot be made to fit is kept as failed. A user's unread
   * total is read once per claim: the count when the claim is sent, as the plugin sends it.
   */
  private async build(due: PusherDelivery[]): Promise<BuiltEvent[]> {
    const built: BuiltEvent[] = [];
    const totals = new Map<number, Promise<number>>();
    const unreadTotal = (userId: number) => {
      let total = totals.get(userId);
      if (!total) totals.set(userId, (total = this.o.outbox.unreadTotal(userId)));
      return total;
    };
    for (const delivery of due) {
      const data = fittedData(await pusherData(delivery, this.o.presentation, unreadTotal));
      if (!data) {
        await this.failed(delivery, `the data is over ${PUSHER_DATA_MAX_BYTES} bytes even trimmed`, false);
        continue;
      }
      const channel = channelOf(delivery.userId, this.o.channels);
      built.push({ delivery, channel, name: delivery.name, data: data.text, trimmed: data.trimmed });
    }
    return built;
  }

  /** A lane's events, in batches of at most PUSHER_BATCH_MAX, one request after the other; what Pusher took joins `taken`. */
  private async sendLane(target: PusherTarget, lane: BuiltEvent[], taken: BuiltEvent[]): Promise<void> {
    for (let i = 0; i < lane.length; i += PUSHER_BATCH_MAX) await this.send(target, lane.slice(i, i + PUSHER_BATCH_MAX), taken);
  }

  /** One batch_events request; a batch refused for one of its events is sent again one by one. */
  private async send(target: PusherTarget, batch: BuiltEvent[], taken: BuiltEvent[]): Promise<void> {
    if (batch.length === 0) return;
    let error: { text: string; retry: boolean };
    try {
      await triggerBatch(
        target,
        batch.map((e) => ({ channel: e.channel, name: e.name, data: e.data })),
        this.o.timeoutMs,
      );
      const at = this.now();
      taken.push(...batch);
      for (const e of batch) this.stats.latencies.push((at - e.delivery.createdAt) / 1000);
      if (this.stats.latencies.length > LATENCIES_KEPT) this.stats.latencies.splice(0, this.stats.latencies.length - LATENCIES_KEPT);
      return;
    } catch (err) {
      error = describe(err, this.o.timeoutMs);
    }
    if (!error.retry && batch.length > 1) {
      for (const e of batch) await this.send(target, [e], taken);
      return;
    }
    if (!error.retry) this.o.onRefused?.(`Pusher refused the event ${batch[0]!.name} on ${batch[0]!.channel}: ${error.text}`);
    for (const e of batch) await this.failed(e.delivery, error.text, error.retry);
  }

  /** The claim's events Pusher took, marked sent in one statement (two when some were trimmed). */
  private async markSent(taken: BuiltEvent[]): Promise<void> {
    if (taken.length === 0) return;
    const at = this.now();
    const trimmed = taken.filter((e) => e.trimmed);
    const ids = (events: BuiltEvent[]) => events.map((e) => e.delivery.id);
    await this.o.outbox.sent(ids(taken.filter((e) => !e.trimmed)), at, null);
    await this.o.outbox.sent(ids(trimmed), at, `trimmed to ${PUSHER_DATA_MAX_BYTES} bytes`);
    this.stats.sent += taken.length;
    this.stats.trimmed += trimmed.length;
  }

  private async failed(d: PusherDelivery, error: string, retry: boolean): Promise<void> {
    const attempts = d.attempts + 1;
    const window = { retryBaseMs: this.o.retryBaseMs, retryForMs: this.o.retryForMs };
    const retryAt = retry ? nextAttempt({ windowFrom: d.createdAt }, attempts, this.now(), window) : null;
    if (retryAt === null) this.stats.failed++;
    else this.stats.failedAttempts++;
    try {
      await this.o.outbox.attemptFailed(d.id, attempts, retryAt, error);
    } catch (err) {
      this.o.onError?.(err, 'recording a failed Pusher event');
    }
  }
}

/** The events in PUSHER_LANES lanes, each user's in one lane and in their order. */
export function lanesOf<E extends { delivery: { userId: number } }>(events: E[]): E[][] {
  const lanes: E[][] = Array.from({ length: PUSHER_LANES }, () => []);
  for (const e of events) lanes[e.delivery.userId % PUSHER_LANES]!.push(e);
  return lanes.filter((lane) => lane.length > 0);
}

/** What went wrong, without the request's address (it carries the signature), and whether to try again. */
function describe(err: unknown, timeoutMs: number): { text: string; retry: boolean } {
  const e = err as PusherRequestFailure & { error?: { type?: string } };
  if (typeof e?.status === 'number') {
    const retry = e.status === 429 || e.status >= 500;
    return { text: `HTTP ${e.status}${e.body ? `: ${String(e.body).slice(0, 300)}` : ''}`, retry };
  }
  const cause = e?.error;
  if (cause?.name === 'AbortError' || cause?.type === 'aborted') return { text: `no answer within ${timeoutMs} ms`, retry: true };
  return { text: String(cause?.message ?? (err as Error)?.message ?? err), retry: true };
}
