/**
 * Which users got new events, from every instance on the database. A unit of work that logged
 * events reports their users once it has committed (`committed`): this instance's readers hear of
 * them at once, and the other instances through a NOTIFY sent after the commit on a pooled
 * connection, one at a time, with the users of every commit made meanwhile. (A NOTIFY inside the
 * transaction would hold PostgreSQL's notify lock through its commit: one notifying commit at a
 * time, their WAL flushes one after another.) One dedicated connection (not the pool's) LISTENs,
 * from when the first reader subscribes; when it is lost it connects again, backing off up to 5 s,
 * and then tells every reader to look again (onGap): what was notified while it was away is in the
 * log, not lost. An instance stopped between a commit and its NOTIFY leaves the other instances'
 * readers of those users to hear of them with their next event; an instance's first NOTIFY tells
 * every other instance's readers to look again, which covers one that was restarted.
 *
 * The same channel carries what is never stored (`live`: typing, LiveChannel): a payload
 * `<tag>!<schema>!<message>`, sent in the same one-at-a-time queue. A channel is the database's,
 * whatever the schema: the schema (the listening connection's current_schema) keeps one Souk's
 * typing from the streams of another that shares the database in a schema of its own. A NOTIFY writes no row: it costs the
 * sending instance one statement on a pooled connection, and reaches every instance at once.
 */
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import type { Client, Notification } from 'pg';
import type { EventSignals, LiveChannel } from '../../domain/ports.js';

export const EVENTS_CHANNEL = 'souk_events';

const require = createRequire(import.meta.url);
const MAX_BACKOFF_MS = 5000;
/** NOTIFY's payload is at most 8000 bytes: user ids go in notifications of at most this many characters. */
const PAYLOAD_IDS = 7000;
/** A live message longer than this is not sent (typing's are some 80 characters). */
const LIVE_MAX = 7000;
/** Live messages waiting for their NOTIFY, at most: beyond them (the database slow), the newest are dropped. */
const LIVE_QUEUED = 1000;

/**
 * A notification's payload: the sending instance's tag, then the users' ids (comma-separated) or
 * `*` (every reader should look again).
 */
export function notificationPayloads(tag: string, userIds: readonly number[]): string[] {
  const payloads: string[] = [];
  let ids = '';
  for (const id of userIds) {
    if (ids.length > 0 && ids.length + String(id).length >= PAYLOAD_IDS) {
      payloads.push(`${tag}:${ids}`);
      ids = '';
    }
    ids += ids.length === 0 ? String(id) : `,${id}`;
  }
  if (ids.length > 0) payloads.push(`${tag}:${ids}`);
  return payloads;
}

/** What a notification says: from which instance, and which users (undefined: every reader should look again). */
export function parsePayload(payload: string): { tag: string; userIds: number[] | undefined } | undefined {
  const colon = payload.indexOf(':');
  if (colon <= 0) return undefined;
  const tag = payload.slice(0, colon);
  const list = payload.slice(colon + 1);
  if (list === '*') return { tag, userIds: undefined };
  const ids = list.split(',');
  if (!ids.every((id) => /^\d{1,16}$/.test(id))) return undefined;
  return { tag, userIds: ids.map(Number) };
}

export class PostgresEventSignals implements EventSignals {
  private readonly users = new Set<(userIds: number[]) => void>();
  private readonly gaps = new Set<() => void>();
  private readonly liveListeners = new Set<(message: string) => void>();
  /** Told when the listening connection came back: live messages sent meanwhile were missed (another instance's start misses none). */
  private readonly liveGaps = new Set<() => void>();
  /** The listening connection's current_schema, once connected. */
  private schema = '';
  /** Live messages since the NOTIFY in flight left. */
  private liveOutgoing: string[] = [];
  private client: Client | undefined;
  private connecting = false;
  private closed = false;
  private backoffMs = 100;
  private retry: NodeJS.Timeout | undefined;
  /** Connections made so far (tests watch reconnections). */
  connections = 0;
  /** This instance's mark on its notifications: it heard of its own commits already. */
  private readonly tag = randomBytes(6).toString('hex');
  /** Users committed since the NOTIFY in flight left, for the next one. */
  private outgoing = new Set<number>();
  private sending: Promise<void> | undefined;
  private announced = false;

  constructor(
    private readonly url: string,
    /** Sends a NOTIFY on the channel, on a pooled connection. */
    private readonly notify: (payload: string) => Promise<void>,
  ) {}

  /** After a unit of work that logged events for these users has committed. */
  committed(userIds: Iterable<number>): void {
    const users = [...userIds];
    if (users.length === 0) return;
    for (const listener of this.users) listener(users);
    for (const id of users) this.outgoing.add(id);
    this.flush();
  }

  /** What is never stored, to the other instances (LiveChannel). */
  readonly live: LiveChannel = {
    publish: (message) => {
      if (message.length > LIVE_MAX || this.liveOutgoing.length >= LIVE_QUEUED) return;
      this.liveOutgoing.push(message);
      this.flush();
    },
    subscribe: (onMessage, onGap) => {
      this.liveListeners.add(onMessage);
      this.liveGaps.add(onGap);
      if (!this.client && !this.connecting) void this.connect();
      return () => {
        this.liveListeners.delete(onMessage);
        this.liveGaps.delete(onGap);
      };
    },
  };

  /** One NOTIFY at a time; what commits meanwhile goes with the next. */
  private flush(): void {
    if (this.sending || (this.outgoing.size === 0 && this.liveOutgoing.length === 0)) return;
    const users = [...this.outgoing];
    this.outgoing = new Set();
    const live = this.liveOutgoing.map((message) => `${this.tag}!${this.schema}!${message}`);
    this.liveOutgoing = [];
    this.sending = this.send(users, live).finally(() => {
      this.sending = undefined;
      this.flush();
    });
  }

  private async send(users: number[], live: string[] = []): Promise<void> {
    const payloads = [...notificationPayloads(this.tag, users), ...live];
    if (!this.announced) {
      this.announced = true;
      payloads.unshift(`${this.tag}:*`);
    }
    // A NOTIFY that fails (the database gone) is not sent again: the readers it was for look
    // again when their instance's LISTEN connection comes back (onGap), or with their next event.
    for (const payload of payloads) await this.notify(payload).catch(() => {});
  }

  subscribe(onUsers: (userIds: number[]) => void, onGap: () => void): () => void {
    this.users.add(onUsers);
    this.gaps.add(onGap);
    if (!this.client && !this.connecting) void this.connect();
    return () => {
      this.users.delete(onUsers);
      this.gaps.delete(onGap);
    };
  }

  /** Sends what is still to notify, then ends the listening connection for good. */
  async close(): Promise<void> {
    while (this.sending) await this.sending;
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  /** The listening connection's server process id, for tests that cut it. */
  async backendPid(): Promise<number | undefined> {
    const result = await this.client?.query<{ pid: number }>('select pg_backend_pid() as pid');
    return result?.rows[0]?.pid;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    this.connecting = true;
    const pg = require('pg') as typeof import('pg');
    const client = new pg.Client({ connectionString: this.url, keepAlive: true });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      client.end().catch(() => {});
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (n: Notification) => this.notified(n));
    try {
      await client.connect();
      await client.query(`listen ${EVENTS_CHANNEL}`);
      this.schema = (await client.query<{ schema: string | null }>('select current_schema() as schema')).rows[0]?.schema ?? '';
    } catch {
      this.connecting = false;
      onLost();
      return;
    }
    this.connecting = false;
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.backoffMs = 100;
    // Anything committed before the LISTEN took effect was not signalled: readers look again.
    if (this.connections++ > 0) for (const gap of [...this.gaps, ...this.liveGaps]) gap();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry) return;
    const wait = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect();
    }, wait);
    this.retry.unref();
  }

  private notified(n: Notification): void {
    if (n.channel !== EVENTS_CHANNEL || !n.payload) return;
    const bang = n.payload.indexOf('!');
    if (bang > 0 && !n.payload.slice(0, bang).includes(':')) {
      const rest = n.payload.slice(bang + 1);
      const second = rest.indexOf('!');
      const heard = n.payload.slice(0, bang) !== this.tag && second >= 0 && rest.slice(0, second) === this.schema && this.schema !== '';
      if (heard) for (const listener of this.liveListeners) listener(rest.slice(second + 1));
      return;
    }
    const said = parsePayload(n.payload);
    if (!said || said.tag === this.tag) return;
    if (said.userIds === undefined) for (const gap of this.gaps) gap();
    else for (const listener of this.users) listener(said.userIds);
  }
}
