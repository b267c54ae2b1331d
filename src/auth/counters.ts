/**
 * Fixed-window request counters for the rate limits: in process memory (one instance), or in
 * Redis so that every instance of an installation shares them. A window starts with the first
 * request counted under a key and lasts windowMs; the count resets when it ends.
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

// Loaded only for a Redis counter: most installations count in memory and never need it.
const loadRedis = () => (createRequire(import.meta.url)('ioredis') as typeof import('ioredis')).Redis;

export interface Hit {
  /** Requests counted under the key in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
}

export interface Counter {
  /** Counts one request; undefined when the count is unknown (the store did not answer). */
  hit(key: string, windowMs: number): Promise<Hit | undefined>;
  /** The count so far without counting (0 when the key has no live window); undefined when unknown. */
  peek(key: string): Promise<Hit | undefined>;
  /** Gives back one request counted by hit() in the key's live window (none when it has ended). */
  release(key: string): Promise<void>;
  /** Ends the key's window: its count starts again from 0. */
  forget(key: string): Promise<void>;
  close(): Promise<void>;
}

export interface MemoryCounterOptions {
  /** Most keys held; a new window beyond it replaces the oldest one (the one that ends first). */
  capacity?: number;
  now?: () => number;
}

const NONE: Hit = { count: 0, resetMs: 0 };
const SWEEP_AT_LEAST_EVERY_MS = 3_600_000;

export class MemoryCounter implements Counter {
  // Insertion order is window start order (a new window is re-inserted), so the first key is the oldest.
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly capacity: number;
  private readonly now: () => number;

  constructor(sweepEveryMs: number, options: MemoryCounterOptions = {}) {
    this.capacity = options.capacity ?? Infinity;
    this.now = options.now ?? Date.now;
    // Forget ended windows so the map holds only keys seen in the last window. At least hourly: a
    // timer past 2^31 ms (24.8 days; LOGIN_KNOWN_ADDRESS_S allows a year) would fire every 1 ms.
    this.sweeper = setInterval(() => this.sweep(), Math.min(SWEEP_AT_LEAST_EVERY_MS, Math.max(1000, sweepEveryMs)));
    this.sweeper.unref();
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }

  async hit(key: string, windowMs: number): Promise<Hit> {
    const now = this.now();
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      this.windows.delete(key);
      if (this.windows.size >= this.capacity) this.windows.delete(this.windows.keys().next().value as string);
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return { count: w.count, resetMs: w.resetAt - now };
  }

  async peek(key: string): Promise<Hit> {
    const now = this.now();
    const w = this.windows.get(key);
    return w && w.resetAt > now ? { count: w.count, resetMs: w.resetAt - now } : NONE;
  }

  async release(key: string): Promise<void> {
    const w = this.windows.get(key);
    if (w && w.resetAt > this.now() && w.count > 0) w.count--;
  }

  async forget(key: string): Promise<void> {
    this.windows.delete(key);
  }

  /** Keys with a live window (for tests). */
  get size(): number {
    return this.windows.size;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

// INCR the key; the first request of a window sets its expiry. Returns the count and the time left.
const HIT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if n == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}`;

// The count and the time left, without counting; {0, 0} for a key with no live window.
const PEEK_SCRIPT = `
local n = redis.call('GET', KEYS[1])
if not n then return {0, 0} end
return {tonumber(n), redis.call('PTTL', KEYS[1])}`;

// One request given back, within the live window only (a key that expired stays absent).
const RELEASE_SCRIPT = `
local n = tonumber(redis.call('GET', KEYS[1]))
if n and n > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

type RedisWithScripts = Redis & {
  soukRateHit(key: string, windowMs: number): Promise<[number, number]>;
  soukRatePeek(key: string): Promise<[number, number]>;
  soukRateRelease(key: string): Promise<number>;
};

export interface RedisCounterOptions {
  url: string;
  prefix: string;
  /** A Redis command that takes longer than this counts as a failure (its count is unknown). */
  commandTimeoutMs?: number;
  /** Told when Redis stops answering (a failed or timed-out command, a connection error): once, until it answers again. */
  onDown: (err: Error) => void;
  /** Told when Redis answers again after onDown. */
  onUp?: () => void;
}

export class RedisCounter implements Counter {
  private readonly redis: RedisWithScripts;
  /** False from a failure until Redis next answers; undefined before the first answer or failure. */
  private up: boolean | undefined;

  constructor(private readonly opts: RedisCounterOptions) {
    const redis = new (loadRedis())(opts.url, {
      // Fail fast instead of queueing while disconnected: the count is unknown at once.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: opts.commandTimeoutMs ?? 250,
      connectTimeout: 1000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
      lazyConnect: true,
    });
    redis.defineCommand('soukRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    redis.defineCommand('soukRatePeek', { numberOfKeys: 1, lua: PEEK_SCRIPT });
    redis.defineCommand('soukRateRelease', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
    // ioredis reports every failed reconnection attempt: only the first of an outage is passed on.
    redis.on('error', (err: Error) => this.down(err));
    this.redis = redis as RedisWithScripts;
  }

  /** False while Redis is not answering. */
  get available(): boolean {
    return this.up !== false;
  }

  private down(err: Error): void {
    if (this.up === false) return;
    this.up = false;
    this.opts.onDown(err);
  }

  private answered(): void {
    if (this.up === false) this.opts.onUp?.();
    this.up = true;
  }

  /** Connects, waiting at most timeoutMs; a server that is down only means counts are unknown until it is back. */
  async connect(timeoutMs = 1000): Promise<boolean> {
    const connecting = this.redis.connect().then(
      () => true,
      (err: Error) => {
        this.down(err);
        return false;
      },
    );
    const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
    return Promise.race([connecting, timer]);
  }

  async hit(key: string, windowMs: number): Promise<Hit | undefined> {
    return this.ask(() => this.redis.soukRateHit(this.opts.prefix + key, windowMs));
  }

  async peek(key: string): Promise<Hit | undefined> {
    return this.ask(() => this.redis.soukRatePeek(this.opts.prefix + key));
  }

  async release(key: string): Promise<void> {
    await this.send(() => this.redis.soukRateRelease(this.opts.prefix + key));
  }

  async forget(key: string): Promise<void> {
    await this.send(() => this.redis.del(this.opts.prefix + key));
  }

  /** A command whose answer does not matter: a failure only marks Redis down. */
  private async send(command: () => Promise<unknown>): Promise<void> {
    try {
      await command();
      this.answered();
    } catch (err) {
      this.down(err as Error);
    }
  }

  private async ask(command: () => Promise<[number, number]>): Promise<Hit | undefined> {
    try {
      const [count, resetMs] = await command();
      this.answered();
      return { count: Number(count), resetMs: Number(resetMs) };
    } catch (err) {
      this.down(err as Error);
      return undefined;
    }
  }

  async close(): Promise<void> {
    try {
      await Promise.race([this.redis.quit(), new Promise((r) => setTimeout(r, 500).unref())]);
    } catch {
      // already gone
    }
    this.redis.disconnect();
  }
}
