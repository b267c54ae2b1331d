/**
 * Which users got new events, from every instance on the database: one dedicated connection
 * (not the pool's) LISTENs on the channel the recording statement notifies at commit
 * (repositories.ts). It connects when the first reader subscribes; when it is lost it connects
 * again, backing off up to 5 s, and then tells every reader to look again (onGap): what was
 * notified while it was away is in the log, not lost.
 */
import { createRequire } from 'node:module';
import type { Client, Notification } from 'pg';
import type { EventSignals } from '../../domain/ports.js';

export const EVENTS_CHANNEL = 'souk_events';

const require = createRequire(import.meta.url);
const MAX_BACKOFF_MS = 5000;

export class PostgresEventSignals implements EventSignals {
  private readonly users = new Set<(userIds: number[]) => void>();
  private readonly gaps = new Set<() => void>();
  private client: Client | undefined;
  private connecting = false;
  private closed = false;
  private backoffMs = 100;
  private retry: NodeJS.Timeout | undefined;
  /** Connections made so far (tests watch reconnections). */
  connections = 0;

  constructor(private readonly url: string) {}

  subscribe(onUsers: (userIds: number[]) => void, onGap: () => void): () => void {
    this.users.add(onUsers);
    this.gaps.add(onGap);
    if (!this.client && !this.connecting) void this.connect();
    return () => {
      this.users.delete(onUsers);
      this.gaps.delete(onGap);
    };
  }

  /** Ends the listening connection for good. */
  async close(): Promise<void> {
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
    if (this.connections++ > 0) for (const gap of this.gaps) gap();
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
    if (n.channel !== EVENTS_CHANNEL || !n.payload || !/^\d{1,16}$/.test(n.payload)) return;
    const users = [Number(n.payload)];
    for (const listener of this.users) listener(users);
  }
}
