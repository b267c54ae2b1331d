/**
 * Who is online (docs/mail.md): a user holding an event stream, or seen in an authenticated
 * request within ONLINE_WINDOW_S. Seen in memory on every request (a Map's set), written to the
 * store (on WordPress the plugin's `online_status` user meta) at most once per window per user,
 * never awaited by the request. The writes wait up to FLUSH_MS and go together, one statement for
 * all the users seen meanwhile: a request never pays for a write of its own, and the other
 * instances see a user online at most FLUSH_MS later than this one does. The users written lately
 * are a bounded Map (the least recently written go first); a user forgotten there is written again
 * at their next request, nothing worse.
 */
import type { PresenceStatus } from '../domain/chat/presence.js';
import type { PresenceRepository } from '../domain/mail.js';

/** Most users remembered per instance. */
const TRACKED = 100_000;
/** How long a write waits for others to go with it. */
const FLUSH_MS = 1000;

export interface PresenceOptions {
  repo: PresenceRepository;
  windowMs: number;
  /** Whether the user holds an event stream in this process. */
  streaming?: (userId: number) => boolean;
  /** The users holding streams here: kept seen while they do (other instances read the store). */
  streamers?: () => Iterable<number>;
  now?: () => number;
  onError?: (err: unknown, what: string) => void;
  max?: number;
}

export class Presence implements PresenceStatus {
  private readonly written = new Map<number, number>();
  private readonly seenHere = new Map<number, number>();
  /** Users to write at the next flush, and until when they are online. */
  private readonly pending = new Map<number, number>();
  private flushTimer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly o: PresenceOptions) {
    this.now = o.now ?? Date.now;
  }

  /** The user made an authenticated request (or holds a stream) now. */
  seen(userId: number, at = this.now()): void {
    const max = this.o.max ?? TRACKED;
    this.seenHere.delete(userId);
    this.seenHere.set(userId, at);
    if (this.seenHere.size > max) this.seenHere.delete(this.seenHere.keys().next().value!);
    const last = this.written.get(userId);
    if (last !== undefined && at - last < this.o.windowMs) return;
    this.written.delete(userId);
    this.written.set(userId, at);
    if (this.written.size > max) this.written.delete(this.written.keys().next().value!);
    this.pending.set(userId, at + this.o.windowMs);
    this.flushTimer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /** Writes the pending users now, in one go; those not written are tried again at their next request. */
  flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pending.size === 0) return this.writing;
    const entries = [...this.pending].map(([userId, until]) => ({ userId, until }));
    this.pending.clear();
    // One write at a time: the last one awaited is the end of all (stop, before the store closes).
    this.writing = this.writing.then(() =>
      this.o.repo.seenAll(entries).catch((err: unknown) => {
        for (const { userId } of entries) this.written.delete(userId);
        this.o.onError?.(err, `recording that ${entries.length} users are online`);
      }),
    );
    return this.writing;
  }

  /** Online as this instance knows without asking the store: a stream held here, or seen here within the window. */
  isOnlineHere(userId: number, now = this.now()): boolean {
    if (this.o.streaming?.(userId)) return true;
    const here = this.seenHere.get(userId);
    return here !== undefined && now - here < this.o.windowMs;
  }

  /** Online: here (isOnlineHere), or so the store says (another instance, the site). */
  async isOnline(userId: number, now = this.now()): Promise<boolean> {
    if (this.isOnlineHere(userId, now)) return true;
    const until = await this.o.repo.onlineUntil(userId);
    return until !== undefined && now < until;
  }

  /**
   * Online (isOnline), and when last seen: now while streaming here, else the later of this
   * instance's last sight and the store's last write (its `until` less the window: the store is
   * written once a window, so another instance's sight is known to within a window).
   */
  async status(userId: number, now = this.now()): Promise<{ online: boolean; lastSeen: number | undefined }> {
    if (this.o.streaming?.(userId)) return { online: true, lastSeen: now };
    const here = this.seenHere.get(userId);
    if (here !== undefined && now - here < this.o.windowMs) return { online: true, lastSeen: here };
    const until = await this.o.repo.onlineUntil(userId);
    const stored = until === undefined ? undefined : Math.min(now, until - this.o.windowMs);
    const lastSeen = here === undefined ? stored : stored === undefined ? here : Math.max(here, stored);
    return { online: until !== undefined && now < until, lastSeen };
  }

  /** Keeps the users holding streams here seen, for the other instances and the site. */
  start(): void {
    if (!this.o.streamers) return;
    this.timer = setInterval(
      () => {
        for (const userId of this.o.streamers!()) this.seen(userId);
      },
      Math.max(1000, Math.floor(this.o.windowMs / 4)),
    );
    this.timer.unref();
  }

  /** Stops keeping streamers seen, and writes what is pending. */
  stop(): Promise<void> {
    clearInterval(this.timer);
    return this.flush();
  }
}
