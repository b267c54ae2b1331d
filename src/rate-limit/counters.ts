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
  /** Counts one request; undefined when the count is unknown (store unreachable: let it through). */
  hit(key: string, windowMs: number): Promise<Hit | undefined>;
  close(): Promise<void>;
}

export class MemoryCounter implements Counter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(sweepEveryMs: number, private readonly now: () => number = Date.now) {
    // Forget ended windows so the map holds only keys seen in the last window.
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, sweepEveryMs));
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
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return { count: w.count, resetMs: w.resetAt - now };
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

type RedisWithHit = Redis & { soukRateHit(key: string, windowMs: number): Promise<[number, number]> };

export interface RedisCounterOptions {
  url: string;
  prefix: string;
  /** A Redis command that takes longer than this counts as a failure (and is let through). */
  commandTimeoutMs?: number;
  onError: (err: Error) => void;
}

export class RedisCounter implements Counter {
  private readonly redis: RedisWithHit;

  constructor(private readonly opts: RedisCounterOptions) {
    const redis = new (loadRedis())(opts.url, {
      // Fail fast instead of queueing while disconnected: the request is let through.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: opts.commandTimeoutMs ?? 250,
      connectTimeout: 1000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
      lazyConnect: true,
    });
    redis.defineCommand('soukRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    redis.on('error', (err: Error) => opts.onError(err));
    this.redis = redis as RedisWithHit;
  }

  /** Connects, waiting at most timeoutMs; a server that is down only means counts are skipped until it is back. */
  async connect(timeoutMs = 1000): Promise<boolean> {
    const connecting = this.redis.connect().then(
      () => true,
      (err: Error) => {
        this.opts.onError(err);
        return false;
      },
    );
    const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
    return Promise.race([connecting, timer]);
  }

  async hit(key: string, windowMs: number): Promise<Hit | undefined> {
    try {
      const [count, resetMs] = await this.redis.soukRateHit(this.opts.prefix + key, windowMs);
      return { count: Number(count), resetMs: Number(resetMs) };
    } catch (err) {
      this.opts.onError(err as Error);
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
