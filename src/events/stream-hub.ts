/**
 * The users' event streams in this process (GET my/events), fed from the event log.
 *
 * A stream never holds events of its own: it holds a cursor (the last event number it sent) and,
 * when the store signals that its user has new events (EventSignals: the commit on SQLite,
 * LISTEN/NOTIFY from any instance on PostgreSQL, the commit and a poll of the log on MySQL), it
 * reads the log after its cursor and writes what it finds. So what a stream sends is what
 * committed, in the user's order, once (a second signal for an event finds nothing after the
 * cursor); a lost signal delays an event until the next one, never loses it; and a client that
 * reconnects with Last-Event-ID continues from the log exactly where it was.
 *
 * Memory per stream is bounded: a read takes at most a batch, the next waits until the client
 * has taken the last one (drain), and a stream with more than `bufferBytes` waiting for its client
 * (a client that reads nothing still gets heartbeats) is closed: it resumes with Last-Event-ID.
 *
 * Heartbeats are spread: each stream's is due `heartbeatMs` after its last write (a stream that
 * sent an event needs none), the first at its own offset within the interval, so that streams
 * opened together do not come due together; and the streams are visited a slice per turn of the
 * event loop, so no turn writes more than SLICE of them, however many streams are open.
 */
import type { EventStreams, LoggedEvent, StreamRequest, StreamSink } from '../domain/events.js';
import type { EventLog, EventSignals, EventTicketRepository } from '../domain/ports.js';

export interface StreamHubOptions {
  log: EventLog;
  signals: EventSignals;
  /** Expired tickets are forgotten with the pruning. */
  tickets?: EventTicketRepository;
  /** A logged event's data line (events/payloads.ts). */
  present: (event: LoggedEvent) => string;
  heartbeatMs: number;
  bufferBytes: number;
  streamsPerUser: number;
  retentionMs: number;
  now?: () => number;
  /** Told of failures that closed a stream or skipped an event (logged by the caller). */
  onError?: (err: unknown, what: string) => void;
}

/** Events read from the log at a time. */
const BATCH = 100;
/** How often the streams' tokens are checked and their heartbeats looked at. */
const CHECK_EVERY_MS = 1000;
/** Streams visited (token checked, heartbeat written if due) per turn of the event loop. */
const SLICE = 256;
/** Steps of the first heartbeats' offsets, as a fraction of the interval: evenly spread however many open. */
const GOLDEN = 0.6180339887498949;
/** How often the log is pruned of events past the retention. */
const PRUNE_EVERY_MS = 60_000;
const LAST_EVENT_ID = /^\d{1,15}$/;

/** One Server-Sent Events message. `data` is one line of JSON. */
export function sseFrame(id: number, event: string, data: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
}

class Stream {
  cursor = 0;
  busy = true;
  again = false;
  closed = false;
  /** When its heartbeat is due (the hub's clock): heartbeatMs after its last write. */
  due = 0;

  constructor(
    readonly userId: number,
    readonly sink: StreamSink,
    readonly stillValid: () => boolean,
  ) {}
}

export class StreamHub implements EventStreams {
  private readonly byUser = new Map<number, Set<Stream>>();
  private open = 0;
  private unsubscribe: (() => void) | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private pruner: NodeJS.Timeout | undefined;
  /** A pass over the streams is under way (a slice per turn): the next tick waits for it. */
  private passing = false;
  private offset = 0;
  private readonly now: () => number;

  constructor(private readonly o: StreamHubOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Streams open in this process. */
  get size(): number {
    return this.open;
  }

  /** Whether the user has a stream open in this process (push notifications wait for none). */
  isStreaming(userId: number): boolean {
    return this.byUser.has(userId);
  }

  /** The users with a stream open in this process (presence keeps them online: events/presence.ts). */
  streamingUsers(): Iterable<number> {
    return this.byUser.keys();
  }

  /**
   * Writes an event that is never stored (typing) to the user's streams in this process, without
   * an `id:` line: a client's Last-Event-ID stays the last logged event's, and a reconnection
   * replays nothing of it. How many streams it went to.
   */
  sendLive(userId: number, event: string, data: string): number {
    let sent = 0;
    for (const s of this.byUser.get(userId) ?? []) {
      if (s.closed) continue;
      if (this.send(s, `event: ${event}\ndata: ${data}\n\n`)) sent++;
    }
    return sent;
  }

  /** Listens to the store's signals and starts the heartbeats, token checks and pruning. */
  start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.o.signals.subscribe(
      (userIds) => {
        for (const id of userIds) for (const s of this.byUser.get(id) ?? []) void this.pump(s);
      },
      () => {
        for (const streams of this.byUser.values()) for (const s of streams) void this.pump(s);
      },
    );
    // A heartbeat comes at most a tick late: a quarter of the interval when that is under a second.
    this.ticker = setInterval(() => this.tick(), Math.min(CHECK_EVERY_MS, this.o.heartbeatMs / 4));
    this.ticker.unref();
    this.pruner = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.pruner.unref();
  }

  /** Ends every stream (a shutdown: clients reconnect elsewhere with Last-Event-ID) and stops. */
  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearInterval(this.ticker);
    clearInterval(this.pruner);
    for (const streams of this.byUser.values()) for (const s of streams) this.end(s, false);
  }

  /** Forgets the events past the retention and the expired tickets. */
  async prune(): Promise<void> {
    const now = this.now();
    try {
      await this.o.log.prune(now - this.o.retentionMs);
      await this.o.tickets?.forgetExpired(now);
    } catch (err) {
      this.o.onError?.(err, 'pruning the event log');
    }
  }

  /** Opens a stream: replays what the client missed after Last-Event-ID, then follows the log. */
  add(request: StreamRequest): void {
    const s = new Stream(request.userId, request.sink, request.stillValid);
    this.offset = (this.offset + GOLDEN) % 1;
    s.due = this.now() + this.offset * this.o.heartbeatMs;
    let streams = this.byUser.get(s.userId);
    if (!streams) this.byUser.set(s.userId, (streams = new Set()));
    // A client that reconnects without closing leaves its old stream behind: the oldest goes.
    if (streams.size >= this.o.streamsPerUser) {
      const oldest = streams.values().next().value;
      if (oldest) this.end(oldest, false);
    }
    streams.add(s);
    if (this.open++ === 0) this.o.signals.streaming?.(true);
    s.sink.onClose(() => this.forget(s));
    // The client waits 2 s before reconnecting; the comment sends the head and says the stream is up.
    s.sink.write('retry: 2000\n: connected\n\n');
    void this.begin(s, request.lastEventId);
  }

  private async begin(s: Stream, lastEventId: string | undefined): Promise<void> {
    let replay = false;
    try {
      if (lastEventId === undefined) {
        s.cursor = await this.o.log.lastSeq(s.userId);
      } else {
        const start = await this.resumeFrom(s.userId, lastEventId);
        if (start.reset) s.sink.write(sseFrame(start.cursor, 'reset', JSON.stringify({ last_event_id: start.cursor })));
        s.cursor = start.cursor;
        replay = !start.reset;
      }
    } catch (err) {
      this.o.onError?.(err, 'opening an event stream');
      this.end(s, false);
      return;
    }
    s.busy = false;
    if (replay || s.again) void this.pump(s);
  }

  /**
   * Where a stream that saw `lastEventId` continues: right after it when the log still holds
   * everything since, else from the newest event after a `reset` (the client reloads): the
   * events it missed were pruned, or the id is not one of this log's.
   */
  private async resumeFrom(userId: number, lastEventId: string): Promise<{ cursor: number; reset: boolean }> {
    const n = LAST_EVENT_ID.test(lastEventId) ? Number(lastEventId) : NaN;
    if (Number.isSafeInteger(n)) {
      const next = await this.o.log.after(userId, n, 1);
      if (next[0]?.seq === n + 1) return { cursor: n, reset: false };
      const last = await this.o.log.lastSeq(userId);
      if (next.length === 0 && last === n) return { cursor: n, reset: false };
      // An event that committed between the two reads is not a pruned one.
      if (next.length === 0 && last > n && (await this.o.log.after(userId, n, 1))[0]?.seq === n + 1) return { cursor: n, reset: false };
      return { cursor: last, reset: true };
    }
    return { cursor: await this.o.log.lastSeq(userId), reset: true };
  }

  /** Sends what the log holds after the stream's cursor; one read at a time per stream. */
  private async pump(s: Stream): Promise<void> {
    if (s.closed) return;
    if (s.busy) {
      s.again = true;
      return;
    }
    s.busy = true;
    try {
      do {
        s.again = false;
        const events = await this.o.log.after(s.userId, s.cursor, BATCH);
        if (s.closed) return;
        let chunk = '';
        for (const e of events) {
          s.cursor = e.seq;
          try {
            chunk += sseFrame(e.seq, e.type, this.o.present(e));
          } catch (err) {
            this.o.onError?.(err, `presenting event ${e.seq} of user ${s.userId}`);
          }
        }
        if (chunk !== '' && !this.send(s, chunk)) return;
        if (events.length === BATCH) s.again = true;
        // The next read waits until the client has taken this one.
        if (s.again && s.sink.needsDrain()) await s.sink.drained();
      } while (s.again && !s.closed);
    } catch (err) {
      this.o.onError?.(err, 'reading the event log');
      this.end(s, true);
    } finally {
      s.busy = false;
    }
  }

  /** Writes, or closes a stream whose client lets more than bufferBytes wait; false when closed. */
  private send(s: Stream, chunk: string): boolean {
    s.sink.write(chunk);
    s.due = this.now() + this.o.heartbeatMs;
    if (s.sink.buffered() <= this.o.bufferBytes) return true;
    this.end(s, true);
    return false;
  }

  private tick(): void {
    if (this.passing) return;
    this.passing = true;
    this.pass(this.allStreams());
  }

  /** Visits SLICE streams, then yields the event loop before the next slice. */
  private pass(streams: Iterator<Stream>): void {
    const now = this.now();
    for (let i = 0; i < SLICE; i++) {
      const next = streams.next();
      if (next.done) {
        this.passing = false;
        return;
      }
      const s = next.value;
      if (s.closed) continue;
      if (!s.stillValid()) this.end(s, false);
      else if (now >= s.due) this.send(s, ': heartbeat\n\n');
    }
    setImmediate(() => this.pass(streams));
  }

  /** Every open stream; streams that open or close meanwhile are seen or skipped (Map and Set iteration). */
  private *allStreams(): Generator<Stream> {
    for (const streams of this.byUser.values()) yield* streams;
  }

  private end(s: Stream, cut: boolean): void {
    if (s.closed) return;
    this.forget(s);
    if (cut) s.sink.destroy();
    else s.sink.end();
  }

  private forget(s: Stream): void {
    if (s.closed) return;
    s.closed = true;
    if (--this.open === 0) this.o.signals.streaming?.(false);
    const streams = this.byUser.get(s.userId);
    streams?.delete(s);
    if (streams?.size === 0) this.byUser.delete(s.userId);
  }
}
