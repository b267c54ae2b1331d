/**
 * Rate limits per API key and per user (docs/hardening.md). The auth hook calls checkKey() right
 * after the API key is accepted (D4 step 2) and checkUser() once the token's user is known (step 4),
 * so both limits come before the body is read. Over a limit: 429 shape B TOO_MANY_REQUESTS with
 * Retry-After. Keys are counted by a hash of the API key; the raw key is never stored or logged.
 * With REDIS_URL the counters are shared by all instances; if Redis fails, requests are let
 * through (fail open) and a warning is logged at most every 10 seconds.
 */
import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import type { RateLimitConfig } from '../../config.js';
import { MemoryCounter, RedisCounter, type Counter } from '../../rate-limit/counters.js';
import { tooManyRequests } from '../errors.js';

export interface RateLimits {
  /** Counts a request made with this (accepted) API key; throws 429 when over the limit. */
  checkKey(apiKey: string): Promise<void>;
  /** Counts a request by this (authenticated) user; throws 429 when over the limit. */
  checkUser(userId: number): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    rateLimits: RateLimits;
  }
}

const WARN_EVERY_MS = 10_000;

export const keyId = (apiKey: string) => createHash('sha256').update(apiKey, 'utf8').digest('base64url').slice(0, 22);

// Only accepted keys are counted, and only the configured key is accepted: hashed once per key.
let lastKey: { key: string; id: string } | undefined;
function acceptedKeyId(apiKey: string): string {
  if (lastKey?.key !== apiKey) lastKey = { key: apiKey, id: keyId(apiKey) };
  return lastKey.id;
}

export const rateLimits = fp<{ config: RateLimitConfig }>(
  async (app, { config }) => {
    let lastWarning = 0;
    const warn = (err: Error) => {
      const now = Date.now();
      if (now - lastWarning < WARN_EVERY_MS) return;
      lastWarning = now;
      app.log.warn({ err: { message: err.message } }, 'rate limit store (Redis) unavailable: requests are let through uncounted');
    };

    let counter: Counter | undefined;
    if (config.perKey > 0 || config.perUser > 0) {
      if (config.redisUrl) {
        const redis = new RedisCounter({ url: config.redisUrl, prefix: config.redisPrefix, onError: warn });
        await redis.connect();
        counter = redis;
      } else {
        counter = new MemoryCounter(config.windowMs);
      }
      const opened = counter;
      app.addHook('onClose', async () => opened.close());
    }

    const check = async (scope: 'key' | 'user', id: string, max: number) => {
      if (!counter || max === 0) return;
      const hit = await counter.hit(`${scope}:${id}`, config.windowMs);
      if (hit && hit.count > max) throw tooManyRequests(scope, Math.max(1, Math.ceil(hit.resetMs / 1000)));
    };

    app.decorate<RateLimits>('rateLimits', {
      checkKey: (apiKey) => check('key', acceptedKeyId(apiKey), config.perKey),
      checkUser: (userId) => check('user', String(userId), config.perUser),
    });
  },
  { name: 'souk-rate-limits', fastify: '5.x' },
);
