/**
 * Rate limits (docs/hardening.md): failed authentications per client address, requests per API key
 * and per user. The auth hook calls checkAddress() before any credential is read, authFailed()
 * when authentication fails, checkKey() once the token verified (after D4 step 3) and checkUser()
 * once the token's user is known (step 4), so every limit comes before the body is read. Over a
 * limit: 429 shape B TOO_MANY_REQUESTS with Retry-After. Keys are counted by a hash of the API
 * key; the raw key is never stored or logged. With REDIS_URL the counters are shared by all
 * instances; while Redis does not answer, RATE_LIMIT_REDIS_FAILURE decides: let requests through
 * uncounted (open) or answer 503 (closed). The outage is logged once, when it starts.
 */
import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import type { RateLimitConfig } from '../../config.js';
import { addressGroup } from '../../auth/client-address.js';
import { MemoryCounter, RedisCounter, type Counter, type Hit } from '../../auth/counters.js';
import type { SignInAttempt } from '../../domain/sign-in.js';
import { serviceUnavailable, tooManyRequests, type RATE_LIMIT_MESSAGES } from '../errors.js';

export interface RateLimits {
  /** Refuses (429) a client address over its budget of failed authentications. */
  checkAddress(ip: string | undefined): Promise<void>;
  /** Counts a failed authentication against the client address; never throws. */
  authFailed(ip: string | undefined): Promise<void>;
  /** Counts a request made with this API key and a verified token; throws 429 when over the limit. */
  checkKey(apiKey: string): Promise<void>;
  /** Counts a request by this (authenticated) user; throws 429 when over the limit. */
  checkUser(userId: number): Promise<void>;
  /** Counts a request of the server API made with this server key (its name); throws 429 when over SERVER_API_RATE_LIMIT. */
  checkServerKey(name: string): Promise<void>;
  /** Refuses (429) a sign-in from a client address over its budget of failed sign-ins, before any database read. */
  checkSignIn(ip: string | undefined): Promise<void>;
  /**
   * Takes a sign-in attempt, before its password is checked, from three budgets: its subject's from
   * this address (the subject: domain/sign-in.ts, the account, else the name), its subject's from
   * every address (skipped for an address the account signed in from within LOGIN_KNOWN_ADDRESS_S,
   * so that strangers cannot lock its owner out) and the address's. Each is counted and checked in
   * one step, so attempts made at once, on any instance, cannot pass together. Over a budget: 429,
   * and nothing stays taken. A wrong password keeps the attempt counted; a right one forgets the
   * subject's failures from this address, gives the address's attempt back and makes the address
   * known to the account; an undecided one gives all back.
   */
  admitSignIn(ip: string | undefined, subject: string): Promise<SignInAttempt>;
  /** Whether the Redis of the counters answers; undefined without REDIS_URL. */
  storeUp(): boolean | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    rateLimits: RateLimits;
  }
}

export const keyId = (apiKey: string) => createHash('sha256').update(apiKey, 'utf8').digest('base64url').slice(0, 22);

// Only accepted keys are counted, and only the configured key is accepted: hashed once per key.
let lastKey: { key: string; id: string } | undefined;
function acceptedKeyId(apiKey: string): string {
  if (lastKey?.key !== apiKey) lastKey = { key: apiKey, id: keyId(apiKey) };
  return lastKey.id;
}

const retryAfterS = (hit: Hit) => Math.max(1, Math.ceil(hit.resetMs / 1000));

export const rateLimits = fp<{ config: RateLimitConfig }>(
  async (app, { config }) => {
    const perRequest = config.perKey > 0 || config.perUser > 0 || config.perServerKey > 0;
    const perAddress = config.authFailures > 0;
    const perSignIn = config.loginFailuresPerUsername > 0 || config.loginFailuresPerAccount > 0 || config.loginFailuresPerAddress > 0;

    let redis: RedisCounter | undefined;
    if (config.redisUrl && (perRequest || perAddress || perSignIn)) {
      const whileDown = config.redisFailure === 'open' ? 'let through uncounted' : 'refused with 503';
      redis = new RedisCounter({
        url: config.redisUrl,
        prefix: config.redisPrefix,
        onDown: (err) =>
          app.log.warn(
            { err: { message: err.message } },
            `rate limit store (Redis) unavailable: requests are ${whileDown} until it answers`,
          ),
        onUp: () => app.log.warn('rate limit store (Redis) answers again: requests are counted'),
      });
      await redis.connect();
    }
    // Without Redis the addresses get a counter of their own: a client chooses its address, so
    // that map is bounded; the other keys are users and the one API key, bounded by the catalog.
    const requests: Counter | undefined = perRequest ? (redis ?? new MemoryCounter(config.windowMs)) : undefined;
    const addresses: Counter | undefined = perAddress
      ? (redis ?? new MemoryCounter(config.windowMs, { capacity: config.trackedAddresses }))
      : undefined;
    // Usernames are the client's choice too: bounded like the addresses.
    const signIns: Counter | undefined = perSignIn
      ? (redis ?? new MemoryCounter(config.loginFailureWindowMs, { capacity: config.trackedAddresses }))
      : undefined;
    // The addresses each account signed in from: apart from the failures, so that a flood of
    // failures cannot push them out of a bounded map.
    const knownMs = config.loginKnownAddressS * 1000;
    const known: Counter | undefined =
      config.loginFailuresPerAccount > 0 ? (redis ?? new MemoryCounter(knownMs, { capacity: config.trackedAddresses })) : undefined;
    app.addHook('onClose', async () => {
      await Promise.all([...new Set([requests, addresses, signIns, known])].map((c) => c?.close()));
    });

    /** An unknown count (Redis did not answer): let through, or 503 when configured closed. */
    const unknown = () => {
      if (config.redisFailure === 'closed') throw serviceUnavailable();
    };

    const check = async (scope: keyof typeof RATE_LIMIT_MESSAGES, id: string, max: number) => {
      if (!requests || max === 0) return;
      const hit = await requests.hit(`${scope}:${id}`, config.windowMs);
      if (!hit) return unknown();
      if (hit.count > max) throw tooManyRequests(scope, retryAfterS(hit));
    };

    const addressKey = (ip: string | undefined) => `address:${addressGroup(ip ?? '')}`;
    // The subject hashed: a key holds no username, and is short whatever the client sent.
    const accountKey = (subject: string) => `login-account:${keyId(subject)}`;
    const pairKey = (subject: string, ip: string | undefined) => `login-user:${keyId(subject)}:${addressGroup(ip ?? '')}`;
    const knownKey = (subject: string, ip: string | undefined) => `login-known:${keyId(subject)}:${addressGroup(ip ?? '')}`;
    const signInAddressKey = (ip: string | undefined) => `login-address:${addressGroup(ip ?? '')}`;
    /** Whether the account signed in from this address lately (an unknown answer: not known). */
    const knownTo = async (subject: string, ip: string | undefined) => ((await known?.peek(knownKey(subject, ip)))?.count ?? 0) > 0;

    /** Takes one attempt from each budget in turn; over one, or unknown while closed, gives back those taken. */
    async function take(budgets: ReadonlyArray<readonly [string, number]>): Promise<string[]> {
      const taken: string[] = [];
      for (const [key, max] of budgets) {
        if (!signIns || max === 0) continue;
        const hit = await signIns.hit(key, config.loginFailureWindowMs);
        if (hit) taken.push(key);
        if (hit && hit.count <= max) continue;
        if (!hit && config.redisFailure === 'open') continue;
        await giveBack(taken);
        if (!hit) throw serviceUnavailable();
        throw tooManyRequests('signIn', retryAfterS(hit));
      }
      return taken;
    }
    const giveBack = async (keys: string[]) => {
      for (const key of keys) await signIns?.release(key);
    };

    app.decorate<RateLimits>('rateLimits', {
      async checkAddress(ip) {
        if (!addresses) return;
        const hit = await addresses.peek(addressKey(ip));
        if (!hit) return unknown();
        if (hit.count >= config.authFailures) throw tooManyRequests('address', retryAfterS(hit));
      },
      async authFailed(ip) {
        // The failure is answered as such whatever happens here: an unknown count is not counted.
        await addresses?.hit(addressKey(ip), config.windowMs);
      },
      async checkSignIn(ip) {
        if (!signIns || config.loginFailuresPerAddress === 0) return;
        const hit = await signIns.peek(signInAddressKey(ip));
        if (!hit) return unknown();
        if (hit.count >= config.loginFailuresPerAddress) throw tooManyRequests('signIn', retryAfterS(hit));
      },
      async admitSignIn(ip, subject) {
        const pair = pairKey(subject, ip);
        const taken = await take([
          [pair, config.loginFailuresPerUsername],
          [accountKey(subject), (await knownTo(subject, ip)) ? 0 : config.loginFailuresPerAccount],
          [signInAddressKey(ip), config.loginFailuresPerAddress],
        ]);
        return {
          succeeded: async () => {
            // Not a failure: its places are given back. The account's other failures stay: they
            // bound the guesses from everywhere else.
            await signIns?.forget(pair);
            await giveBack(taken.filter((key) => key !== pair));
            // Known anew for the whole period from this sign-in on.
            await known?.forget(knownKey(subject, ip));
            await known?.hit(knownKey(subject, ip), knownMs);
          },
          undecided: () => giveBack(taken),
        };
      },
      checkKey: (apiKey) => check('key', acceptedKeyId(apiKey), config.perKey),
      checkUser: (userId) => check('user', String(userId), config.perUser),
      checkServerKey: (name) => check('serverKey', keyId(name), config.perServerKey),
      storeUp: () => redis?.available,
    });
  },
  { name: 'souk-rate-limits', fastify: '5.x' },
);
