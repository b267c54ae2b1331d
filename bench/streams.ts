/**
 * The event-stream rows (issue 21's load targets): N open `GET my/events` streams of N distinct
 * users, each a real connection, and messages sent through POST my/chat/message at a fixed rate to
 * users who hold one.
 *
 * The streams live in a child process (bench/stream-holder.ts), not beside the load generator:
 * holding them there would slow the generator, and a server answering a slower client batches
 * less, so the row would charge the generator's loss to the streams. Their client is lean on
 * purpose, so that 10,000 of them cost little: raw `net` sockets, the request written by hand, the
 * reply's chunked framing and Server-Sent Events parsed only as far as needed (a frame's `event`
 * and the `message_id` of a `message.new`). The messages' client is node:http on a kept-alive
 * agent. Both stamp arrivals on the machine's monotonic clock (which performance.now() reads in
 * every process), so the delivery latency (the event's arrival minus the reply's) needs no clock sync.
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { rng, userId, type Dataset } from './dataset.js';
import { API_BASE } from './scenarios.js';

export const PATH_EVENTS = `${API_BASE}/my/events`;
export const PATH_MESSAGE = `${API_BASE}/my/chat/message`;

/** Streams opened at once (each waits for its `: connected`). */
const OPEN_CONCURRENCY = 200;
const OPEN_TIMEOUT_MS = 30_000;

export interface StreamFleetOptions {
  url: string;
  apiKey: string;
  tokens: string[];
  /** User indexes, one stream each. */
  users: number[];
  /** Told of every `message.new` (its message_id) on the stream of user index `user`, at `at` (performance.now()). */
  onMessage?: (user: number, messageId: number, at: number) => void;
}

/** One stream: a socket, and just enough of HTTP/1.1 and SSE to find its frames. */
class RawStream {
  status = 0;
  /** Bytes of the reply's head until it is complete. */
  private head = '';
  private chunked = false;
  /** Chunked decoding: bytes left in the current chunk, or -1 while reading a size line. */
  private left = -1;
  private sizeLine = '';
  /** After a chunk's data: its CRLF still to skip. */
  private skip = 0;
  private sse = '';
  heartbeats = 0;
  messages = 0;
  connected = false;
  closed = false;
  problem: string | undefined;
  readonly socket: Socket;

  constructor(
    readonly user: number,
    host: string,
    port: number,
    head: string,
    private readonly onConnected: (s: RawStream) => void,
    private readonly onMessage: ((user: number, messageId: number, at: number) => void) | undefined,
    private readonly onClosed: (s: RawStream) => void,
    /** Told of the stream's n-th heartbeat (from 0). */
    private readonly onHeartbeat: (nth: number, at: number) => void,
  ) {
    this.socket = connect({ host, port }, () => this.socket.write(head));
    this.socket.setNoDelay(true);
    this.socket.on('data', (b: Buffer) => this.data(b));
    this.socket.on('error', (err) => (this.problem ??= `socket: ${err.message}`));
    this.socket.on('close', () => {
      this.closed = true;
      this.onClosed(this);
    });
  }

  private data(b: Buffer): void {
    let text = b.toString('latin1');
    if (this.status === 0) {
      this.head += text;
      const end = this.head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.head.slice(0, end);
      text = this.head.slice(end + 4);
      this.head = '';
      this.status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? -1);
      if (this.status !== 200 || !/\r\ncontent-type: text\/event-stream/i.test(head)) {
        this.problem = `HTTP ${this.status}: ${text.slice(0, 200)}`;
        this.socket.destroy();
        return;
      }
      this.chunked = /\r\ntransfer-encoding: chunked/i.test(head);
    }
    this.body(this.chunked ? this.dechunk(text) : text);
  }

  private dechunk(text: string): string {
    let out = '';
    let i = 0;
    while (i < text.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, text.length - i);
        this.skip -= n;
        i += n;
      } else if (this.left < 0) {
        const nl = text.indexOf('\n', i);
        if (nl < 0) {
          this.sizeLine += text.slice(i);
          return out;
        }
        this.left = parseInt(this.sizeLine + text.slice(i, nl), 16);
        this.sizeLine = '';
        i = nl + 1;
        if (this.left === 0) return out; // the last chunk: the server ended the stream
      } else {
        const n = Math.min(this.left, text.length - i);
        out += text.slice(i, i + n);
        this.left -= n;
        i += n;
        if (this.left === 0) {
          this.left = -1;
          this.skip = 2;
        }
      }
    }
    return out;
  }

  private body(text: string): void {
    if (text === '') return;
    this.sse += text;
    let end: number;
    let at = 0;
    while ((end = this.sse.indexOf('\n\n')) >= 0) {
      const frame = this.sse.slice(0, end);
      this.sse = this.sse.slice(end + 2);
      if (frame.startsWith(': heartbeat')) {
        this.onHeartbeat(this.heartbeats++, performance.now());
      } else if (!this.connected && frame.includes(': connected')) {
        this.connected = true;
        this.onConnected(this);
      } else if (frame.includes('\nevent: message.new\n')) {
        this.messages++;
        at ||= performance.now();
        const id = /"message_id":(\d+)/.exec(frame)?.[1];
        if (id === undefined) this.problem ??= `message.new without a message_id: ${frame.slice(0, 200)}`;
        else this.onMessage?.(this.user, Number(id), at);
      }
    }
  }
}

/** One round of heartbeats: the streams that got their n-th, and ms from the first's arrival to the last's. */
export interface HeartbeatRound {
  streams: number;
  spreadMs: number;
}

/** What the holder tells of its streams as they go. */
interface FleetState {
  /** Streams the server closed before close(). */
  dropped: number;
  heartbeats: HeartbeatRound[];
  /** A few reasons, failed opens and drops. */
  problems: string[];
}

export interface StreamFleet {
  /** Streams that answered `: connected`. */
  opened: number;
  openSeconds: number;
  /** Streams that failed to open. */
  failed: number;
  droppedByServer: () => number;
  /**
   * Round n is every stream's n-th heartbeat: the streams it reached and the ms from the first
   * one's arrival to the last's, so how the server spreads one heartbeat to every stream.
   */
  heartbeatRounds: () => HeartbeatRound[];
  problems: string[];
  close(): Promise<void>;
}

/** The soft limit of open files of this process (Node.js raises it to the hard limit at start). */
export function openFilesLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === undefined || soft === 'unlimited' ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

/**
 * Opens one stream per user in this process, OPEN_CONCURRENCY at a time, and resolves once each
 * answered or failed (the holder's work). `onChange` is told of every drop and heartbeat.
 */
export async function holdStreamsHere(o: StreamFleetOptions & { onChange?: (dropped: boolean) => void }): Promise<StreamFleet> {
  const { hostname: host, port } = new URL(o.url);
  const started = performance.now();
  const streams: RawStream[] = [];
  const problems: string[] = [];
  let failed = 0;
  let closing = false;
  let dropped = 0;
  let next = 0;
  let pending = 0;
  const rounds: { first: number; last: number; streams: number }[] = [];
  // A stream's n-th heartbeat comes after its (n-1)-th: rounds fill in order, and in time order within each.
  const onHeartbeat = (nth: number, at: number) => {
    const r = (rounds[nth] ??= { first: at, last: at, streams: 0 });
    r.last = at;
    r.streams++;
    o.onChange?.(false);
  };
  await new Promise<void>((resolve) => {
    const settle = new Map<RawStream, NodeJS.Timeout>();
    const done = (s: RawStream, ok: boolean) => {
      const timer = settle.get(s);
      if (timer === undefined) return;
      clearTimeout(timer);
      settle.delete(s);
      pending--;
      if (!ok) {
        failed++;
        if (problems.length < 5) problems.push(`stream of user ${userId(s.user)}: ${s.problem ?? 'closed before it opened'}`);
      }
      launch();
    };
    const launch = () => {
      while (pending < OPEN_CONCURRENCY && next < o.users.length) {
        const u = o.users[next++]!;
        const head =
          `GET ${PATH_EVENTS} HTTP/1.1\r\nHost: ${host}:${port}\r\nAccept: text/event-stream\r\n` +
          `X-API-KEY: ${o.apiKey}\r\nAuthorization: Bearer ${o.tokens[u]}\r\n\r\n`;
        pending++;
        const s = new RawStream(
          u,
          host,
          Number(port),
          head,
          (st) => done(st, true),
          o.onMessage,
          (st) => {
            if (settle.has(st)) done(st, false);
            else if (!closing && st.connected) {
              dropped++;
              if (problems.length < 5) problems.push(`stream of user ${userId(st.user)} closed by the server: ${st.problem ?? ''}`);
              o.onChange?.(true);
            }
          },
          onHeartbeat,
        );
        streams.push(s);
        settle.set(
          s,
          setTimeout(() => {
            s.problem ??= `no ': connected' within ${OPEN_TIMEOUT_MS / 1000} s`;
            s.socket.destroy();
          }, OPEN_TIMEOUT_MS),
        );
      }
      if (pending === 0 && next >= o.users.length) resolve();
    };
    launch();
  });
  return {
    opened: streams.filter((s) => s.connected).length,
    openSeconds: (performance.now() - started) / 1000,
    failed,
    droppedByServer: () => dropped,
    heartbeatRounds: () => rounds.map((r) => ({ streams: r.streams, spreadMs: r.last - r.first })),
    problems,
    async close() {
      closing = true;
      const gone = streams.filter((s) => !s.closed).map((s) => new Promise<void>((r) => s.socket.once('close', () => r())));
      for (const s of streams) s.socket.destroy();
      await Promise.all(gone);
    },
  };
}

interface HolderOpen {
  type: 'open';
  url: string;
  apiKey: string;
  users: number[];
  tokens: string[];
  messages: boolean;
}
/** The holder's messages: the streams opened, `message.new` arrivals ([user, message id, monotonic ms] flat), its state, a failure. */
type HolderMessage =
  | { type: 'opened'; opened: number; openSeconds: number; failed: number }
  | { type: 'messages'; flat: number[] }
  | ({ type: 'state' } & FleetState)
  | { type: 'error'; message: string };

/** performance.now() plus this is the machine's monotonic clock (uv_hrtime), the same in every process, in ms. */
const MONOTONIC_OFFSET = Number(process.hrtime.bigint()) / 1e6 - performance.now();

/** Opens the streams in a child process (bench/stream-holder.ts) and follows them from here. */
export async function openStreams(o: StreamFleetOptions): Promise<StreamFleet> {
  // The child runs under this process's loader (tsx): fork passes process.execArgv on.
  const child = fork(fileURLToPath(new URL('./stream-holder.ts', import.meta.url)), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let state: FleetState = { dropped: 0, heartbeats: [], problems: [] };
  let closing = false;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const opened = new Promise<Extract<HolderMessage, { type: 'opened' }>>((resolve, reject) => {
    child.on('message', (m: HolderMessage) => {
      if (m.type === 'opened') resolve(m);
      else if (m.type === 'state') state = m;
      else if (m.type === 'error') reject(new Error(`the stream holder: ${m.message}`));
      else for (let i = 0; i < m.flat.length; i += 3) o.onMessage?.(m.flat[i]!, m.flat[i + 1]!, m.flat[i + 2]! - MONOTONIC_OFFSET);
    });
    void exited.then((code) => reject(new Error(`the stream holder exited with ${code} before the streams opened`)));
  });
  void exited.then((code) => {
    if (closing) return;
    // Its streams went with it: each counts as closed.
    state = { ...state, dropped: Number.MAX_SAFE_INTEGER, problems: [...state.problems, `the stream holder exited with ${code}`] };
  });
  child.send({
    type: 'open',
    url: o.url,
    apiKey: o.apiKey,
    users: o.users,
    tokens: o.users.map((u) => o.tokens[u]!),
    messages: o.onMessage !== undefined,
  } satisfies HolderOpen);
  const open = await opened.catch(async (err: unknown) => {
    child.kill();
    await exited;
    throw err;
  });
  return {
    opened: open.opened,
    openSeconds: open.openSeconds,
    failed: open.failed,
    droppedByServer: () => Math.min(state.dropped, open.opened),
    heartbeatRounds: () => state.heartbeats,
    get problems() {
      return state.problems;
    },
    async close() {
      closing = true;
      child.send({ type: 'close' });
      await exited;
    },
  };
}

/** The holder's side (bench/stream-holder.ts): opens the streams it is sent, reports, closes them when told. */
export function serveAsHolder(): void {
  const send = (m: HolderMessage) => process.send!(m);
  // The bench gone, the streams go too.
  process.on('disconnect', () => process.exit(0));
  process.once('message', (m: HolderOpen) => void holdFor(m, send));
}

const stateOf = (fleet: StreamFleet): HolderMessage => ({
  type: 'state',
  dropped: fleet.droppedByServer(),
  heartbeats: fleet.heartbeatRounds(),
  problems: fleet.problems,
});

async function holdFor(m: HolderOpen, send: (m: HolderMessage) => void): Promise<void> {
  const tokens: string[] = [];
  m.users.forEach((u, i) => (tokens[u] = m.tokens[i]!));
  // Arrivals leave in one message per turn of the event loop, the state at most every 100 ms (a drop at once).
  let flat: number[] = [];
  const flush = () => {
    send({ type: 'messages', flat });
    flat = [];
  };
  let stateTimer: NodeJS.Timeout | undefined;
  // While the streams open there is no fleet yet: what changes meanwhile goes with the first state.
  let fleet: StreamFleet | undefined;
  const sendState = () => {
    clearTimeout(stateTimer);
    stateTimer = undefined;
    if (fleet) send(stateOf(fleet));
  };
  try {
    fleet = await holdStreamsHere({
      url: m.url,
      apiKey: m.apiKey,
      tokens,
      users: m.users,
      ...(m.messages
        ? {
            onMessage: (user: number, id: number, at: number) => {
              if (flat.length === 0) setImmediate(flush);
              flat.push(user, id, at + MONOTONIC_OFFSET);
            },
          }
        : {}),
      onChange: (dropped) => {
        if (dropped) sendState();
        else stateTimer ??= setTimeout(sendState, 100);
      },
    });
  } catch (err) {
    send({ type: 'error', message: String(err) });
    process.exit(1);
  }
  const held = fleet;
  sendState();
  send({ type: 'opened', opened: held.opened, openSeconds: held.openSeconds, failed: held.failed });
  process.once('message', async () => {
    await held.close();
    if (flat.length > 0) flush();
    clearTimeout(stateTimer);
    process.send!(stateOf(held), () => process.exit(0));
  });
}

/** The users who hold a stream: the first N of the data set. */
export const streamUsers = (n: number): number[] => Array.from({ length: n }, (_, u) => u);

const TEXT = 'Still available? I can pick it up tomorrow.';

/** One message to send: in conversation `conv` (data-set index), by `sender` to `recipient` (user indexes). */
interface Planned {
  conv: number;
  sender: number;
  recipient: number;
}

/**
 * The messages, in order: the data set's conversations shuffled, each answered by one participant
 * to the other (the buyer and the listing's owner in turns), kept when the recipient holds a stream.
 */
function planMessages(data: Dataset, holders: number): Planned[] {
  const random = rng(29);
  const C = data.convId.length;
  const order = Int32Array.from({ length: C }, (_, k) => k);
  for (let k = C - 1; k > 0; k--) {
    const j = Math.floor(random() * (k + 1));
    [order[k], order[j]] = [order[j]!, order[k]!];
  }
  const plan: Planned[] = [];
  for (let k = 0; k < C; k++) {
    const c = order[k]!;
    const buyer = data.convCaller[c]!;
    const owner = data.owner[data.convListing[c]!]!;
    const [sender, recipient] = k % 2 === 0 ? [buyer, owner] : [owner, buyer];
    if (recipient < holders) plan.push({ conv: c, sender, recipient });
  }
  return plan;
}

export interface DeliveryResult {
  seconds: number;
  /** Messages sent in the measured window and answered 200 with the message. */
  sent: number;
  /** Replies in the measured window (their latencies are the row's reply latencies). */
  replyLatencies: Float64Array;
  /** Event arrival minus reply arrival, ms, for the measured window's messages. Negative: the event came first. */
  deliveryMs: Float64Array;
  /** Over every message sent (warm-up too): answered, delivered once, never, more than once, to a stream not the recipient's. */
  answered: number;
  deliveredOnce: number;
  missing: number;
  duplicates: number;
  misdelivered: number;
  /** message.new events of messages this run did not send. */
  unknown: number;
  failedSends: number;
  statusCounts: Record<string, number>;
  problems: string[];
  /**
   * The rate asked for, and the rate the server answered at: the window's messages over the time
   * from the window's start to the last of their replies (lower than asked when a queue grew).
   */
  rate: number;
  achievedRate: number;
  /** Messages in flight, at most. */
  maxInFlight: number;
}

interface Sent {
  recipient: number;
  replyAt: number;
  measured: boolean;
}

/**
 * Sends `rate` messages a second (in 2 ms ticks, whatever the replies' speed: an open loop) for
 * `warmup` then `seconds`, spread over `targets`, and follows their events on the fleet's streams.
 * Waits up to `settleMs` after the last reply for the last events.
 */
export class Delivery {
  private readonly sent = new Map<number, Sent>();
  /** Events seen: message id -> arrival times and the users whose stream had it. */
  private readonly seen = new Map<number, { at: number; users: number[] }>();
  private readonly problems: string[] = [];
  private readonly statusCounts: Record<string, number> = {};
  private failedSends = 0;
  private unknown = 0;
  private plan: Planned[];
  private k = 0;
  private tempId = 1_900_000_000_000;

  constructor(
    private readonly data: Dataset,
    holders: number,
  ) {
    this.plan = planMessages(data, holders);
    if (this.plan.length === 0) throw new Error('no conversation has a recipient holding a stream');
  }

  /** The fleet's onMessage. */
  readonly onMessage = (user: number, messageId: number, at: number): void => {
    const s = this.seen.get(messageId);
    if (s) s.users.push(user);
    else this.seen.set(messageId, { at, users: [user] });
  };

  private note(p: string) {
    if (this.problems.length < 5) this.problems.push(p);
  }

  async run(opts: {
    targets: string[];
    apiKey: string;
    tokens: string[];
    rate: number;
    warmup: number;
    seconds: number;
    settleMs?: number;
    /** Called as the measured window starts and ends. */
    window?: { start(): void | Promise<void>; end(): void | Promise<void> };
  }): Promise<DeliveryResult> {
    const agent = new Agent({ keepAlive: true, maxSockets: 256 });
    const replyLatencies: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    let measuredSent = 0;
    let lastMeasuredReply = 0;
    let idle: (() => void) | undefined;
    const TICK_MS = 2;
    const send = (measured: boolean, target: string) => {
      const p = this.plan[this.k++ % this.plan.length]!;
      const conId = this.data.convId[p.conv]!;
      const temp = this.tempId++;
      const body = `{"con_id":${conId},"text":"${TEXT}","temp_id":${temp}}`;
      const t0 = performance.now();
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const finish = () => {
        inFlight--;
        if (inFlight === 0) idle?.();
      };
      const req = request(
        `${target}${PATH_MESSAGE}`,
        {
          method: 'POST',
          agent,
          timeout: 30_000,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'x-api-key': opts.apiKey,
            authorization: `Bearer ${opts.tokens[p.sender]}`,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => {
            const at = performance.now();
            const status = res.statusCode ?? 0;
            this.statusCounts[status] = (this.statusCounts[status] ?? 0) + 1;
            const m = status === 200 ? (parse(text) as Record<string, unknown> | undefined) : undefined;
            if (
              !m ||
              !Number.isInteger(m.message_id) ||
              String(m.con_id) !== String(conId) ||
              m.source_id !== userId(p.sender) ||
              m.message !== TEXT ||
              String(m.temp_id) !== String(temp)
            ) {
              this.failedSends++;
              this.note(`reply ${status}: ${text.slice(0, 200)}`);
            } else {
              const id = m.message_id as number;
              if (this.sent.has(id)) {
                this.failedSends++;
                this.note(`message id ${id} answered twice`);
              } else this.sent.set(id, { recipient: p.recipient, replyAt: at, measured });
              if (measured) {
                replyLatencies.push(at - t0);
                measuredSent++;
                lastMeasuredReply = at;
              }
            }
            finish();
          });
          res.on('error', (err) => {
            this.failedSends++;
            this.note(`reply: ${err.message}`);
            finish();
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout after 30 s')));
      req.on('error', (err) => {
        this.failedSends++;
        this.note(`transport: ${err.message}`);
        finish();
      });
      req.end(body);
    };

    const phase = (seconds: number, measured: boolean) =>
      new Promise<number>((resolve) => {
        const start = performance.now();
        let count = 0;
        const timer = setInterval(() => {
          const elapsed = performance.now() - start;
          const due = Math.floor((Math.min(elapsed, seconds * 1000) * opts.rate) / 1000);
          while (count < due) send(measured, opts.targets[count++ % opts.targets.length]!);
          if (elapsed >= seconds * 1000) {
            clearInterval(timer);
            resolve((performance.now() - start) / 1000);
          }
        }, TICK_MS);
      });

    await phase(opts.warmup, false);
    await opts.window?.start();
    const windowStart = performance.now();
    const window = await phase(opts.seconds, true);
    await opts.window?.end();
    if (inFlight > 0) await new Promise<void>((r) => (idle = r));
    agent.destroy();
    // The last events: every answered message's, or settleMs.
    const deadline = performance.now() + (opts.settleMs ?? 10_000);
    while (performance.now() < deadline && [...this.sent.keys()].some((id) => !this.seen.has(id)))
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 200)); // a duplicate would come right after

    let deliveredOnce = 0;
    let missing = 0;
    let duplicates = 0;
    let misdelivered = 0;
    const delivery: number[] = [];
    for (const [id, s] of this.sent) {
      const e = this.seen.get(id);
      if (!e) {
        missing++;
        this.note(`message ${id} to user ${userId(s.recipient)}: no message.new`);
        continue;
      }
      if (e.users.some((u) => u !== s.recipient)) {
        misdelivered++;
        this.note(`message ${id} for user ${userId(s.recipient)} reached user(s) ${e.users.map(userId).join(',')}`);
      }
      if (e.users.length > 1) duplicates++;
      else if (e.users[0] === s.recipient) deliveredOnce++;
      if (s.measured) delivery.push(e.at - s.replyAt);
    }
    for (const id of this.seen.keys()) if (!this.sent.has(id)) this.unknown++;
    return {
      seconds: window,
      sent: measuredSent,
      replyLatencies: Float64Array.from(replyLatencies).sort(),
      deliveryMs: Float64Array.from(delivery).sort(),
      answered: this.sent.size,
      deliveredOnce,
      missing,
      duplicates,
      misdelivered,
      unknown: this.unknown,
      failedSends: this.failedSends,
      statusCounts: this.statusCounts,
      problems: this.problems,
      rate: opts.rate,
      achievedRate: measuredSent / Math.max(window, (lastMeasuredReply - windowStart) / 1000),
      maxInFlight,
    };
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}
