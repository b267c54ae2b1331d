/**
 * Abuse limits per sender (docs/safety.md), as the environment sets them or an owner changed them
 * (domain/tunables.ts): NEW_CONVERSATIONS_PER_HOUR conversations
 * started and MESSAGES_PER_MINUTE messages stored (starts' first messages included),
 * REPORTS_PER_HOUR reports stored, BLOCK_CHANGES_PER_HOUR changes asked of the block lists; over
 * any, 429 shape B TOO_MANY_REQUESTS with Retry-After. Counted by the rate limits' counters
 * (auth/counters.ts, fixed windows): in this process, or with REDIS_URL in Redis, shared by every
 * instance; while Redis does not answer RATE_LIMIT_REDIS_FAILURE applies, as to the rate limits.
 *
 * An account younger than a day (User.registeredAt) gets a quarter of each limit, at least 1.
 *
 * A place is taken before the use case runs (so that senders racing each other cannot pass the
 * limit together) and given back when nothing was stored: a refusal, a failure, or a retry with
 * the temp_id of a message already stored. An upload form takes its places before its files are
 * read (http/uploads.ts), and keeps them when its files were stored, whatever the use case did.
 */
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';
import type { User } from '../../domain/model.js';
import { MemoryCounter, RedisCounter, type Counter, type Hit } from '../../auth/counters.js';
import { serviceUnavailable, tooManyRequests } from '../errors.js';

/** Whom the limits count: the caller, and how new their account is. */
export type Sender = Pick<User, 'id' | 'registeredAt'>;

/** Places taken for one sending, to run it in or to give back unused. */
export interface TakenPlaces<S> {
  /** Runs the sending in the places; those `stored` says it stored nothing in are given back. */
  use<T>(send: () => Promise<T>, stored: (result: T) => S): Promise<T>;
  /** Gives the places back unless a sending was run in them (a form refused before its message). */
  giveBack(): Promise<void>;
}

type StartStored = { message: boolean; conversation: boolean };

export interface AbuseLimits {
  /** A message's place, taken now (429 when over), for a sending to come. */
  messagePlaces(sender: Sender): Promise<TakenPlaces<boolean>>;
  /** A start's places, taken now (429 when over; `continues` as in start()), for a start to come. */
  startPlaces(sender: Sender, continues: () => Promise<boolean>): Promise<TakenPlaces<StartStored>>;
  /** Runs the sending of a message within the sender's budget; `stored`: whether it stored a message. */
  message<T>(sender: Sender, send: () => Promise<T>, stored: (result: T) => boolean): Promise<T>;
  /**
   * Runs a conversation's start within the sender's budgets; `continues`: asked only at the limit
   * of new conversations, whether the start would write in an open conversation instead.
   */
  start<T>(sender: Sender, continues: () => Promise<boolean>, start: () => Promise<T>, stored: (result: T) => StartStored): Promise<T>;
  /** Runs a report within the reporter's budget; `stored`: whether it stored a report (a repeat of an open one stores nothing). */
  report<T>(sender: Sender, report: () => Promise<T>, stored: (result: T) => boolean): Promise<T>;
  /**
   * Counts one change asked of the caller's block lists, kept whatever its answer: a refused one
   * still tells whether an id exists, which is what a guesser asks.
   */
  blockChange(sender: Sender): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    abuseLimits: AbuseLimits;
  }
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** A sender's share of a limit: a quarter (at least 1) while their account is younger than a day; 0 stays off. */
export function limitFor(sender: Sender, max: number): number {
  if (max === 0 || sender.registeredAt === null || Date.now() - sender.registeredAt >= DAY) return max;
  return Math.max(1, Math.ceil(max / 4));
}

interface Place {
  key: string;
  /** Counted: to give back when nothing was stored. */
  taken: boolean;
  /** The count that was over the limit (the place then given back at once). */
  over?: Hit;
}

const retryAfterS = (hit: Hit) => Math.max(1, Math.ceil(hit.resetMs / 1000));

/** The limits in force: 0 turns one off. */
export type AbuseLimitValues = Pick<
  Config['abuse'],
  'conversationsPerHour' | 'messagesPerMinute' | 'reportsPerHour' | 'blockChangesPerHour'
>;

/**
 * `limits`: the values in force, asked at each count (an owner changes them from the console, and
 * every server takes them with the settings); without it, the environment's.
 */
export const abuseLimits = fp<{ config: Config; limits?: () => AbuseLimitValues }>(
  async (app, { config, limits = () => config.abuse }) => {
    const { redisUrl, redisPrefix, redisFailure } = config.rateLimit;
    let counter: Promise<Counter> | undefined;
    // Made at the first count, or at start when the environment turns a limit on (Redis is then reached at once).
    function counterNow(): Promise<Counter> {
      counter ??= (async () => {
        if (!redisUrl) return new MemoryCounter(MINUTE); // keys are signed-in users: bounded by the catalog
        const redis = new RedisCounter({
          url: redisUrl,
          prefix: redisPrefix,
          onDown: (err) => app.log.warn({ err: { message: err.message } }, 'abuse limit store (Redis) unavailable'),
          onUp: () => app.log.warn('abuse limit store (Redis) answers again'),
        });
        await redis.connect();
        return redis;
      })().catch((err: unknown) => {
        counter = undefined; // tried again at the next count
        throw err;
      });
      return counter;
    }
    const { conversationsPerHour, messagesPerMinute, reportsPerHour, blockChangesPerHour } = config.abuse;
    if (conversationsPerHour > 0 || messagesPerMinute > 0 || reportsPerHour > 0 || blockChangesPerHour > 0) await counterNow();
    app.addHook('onClose', async () => {
      if (counter) await (await counter).close();
    });

    async function take(key: string, max: number, windowMs: number): Promise<Place> {
      if (max === 0) return { key, taken: false };
      const hit = await (await counterNow()).hit(key, windowMs);
      if (!hit) {
        if (redisFailure === 'closed') throw serviceUnavailable();
        return { key, taken: false };
      }
      if (hit.count <= max) return { key, taken: true };
      // Refused: the count stays that of what was stored.
      await (await counterNow()).release(key);
      return { key, taken: false, over: hit };
    }
    const release = async (place: Place, keep = false) => {
      if (place.taken && !keep) await (await counterNow()).release(place.key);
    };

    /** The places, to use once or give back once. */
    function taken<S>(places: Place[], kept: (stored: S) => boolean[]): TakenPlaces<S> {
      let settled = false;
      return {
        async use(send, stored) {
          if (settled) throw new Error('abuse limit places used twice');
          settled = true;
          let result;
          try {
            result = await send();
          } catch (err) {
            for (const place of places) await release(place);
            throw err;
          }
          const keep = kept(stored(result));
          for (const [i, place] of places.entries()) await release(place, keep[i]);
          return result;
        },
        async giveBack() {
          if (settled) return;
          settled = true;
          for (const place of places) await release(place);
        },
      };
    }

    async function messagePlaces(sender: Sender): Promise<TakenPlaces<boolean>> {
      const message = await take(`abuse-messages:${sender.id}`, limitFor(sender, limits().messagesPerMinute), MINUTE);
      if (message.over) throw tooManyRequests('messages', retryAfterS(message.over));
      return taken([message], (stored: boolean) => [stored]);
    }

    async function startPlaces(sender: Sender, continues: () => Promise<boolean>): Promise<TakenPlaces<StartStored>> {
      const message = await take(`abuse-messages:${sender.id}`, limitFor(sender, limits().messagesPerMinute), MINUTE);
      if (message.over) throw tooManyRequests('messages', retryAfterS(message.over));
      const conversation = await take(`abuse-conversations:${sender.id}`, limitFor(sender, limits().conversationsPerHour), HOUR);
      if (conversation.over && !(await continues().catch(() => false))) {
        await release(message);
        throw tooManyRequests('conversations', retryAfterS(conversation.over));
      }
      return taken([message, conversation], (stored: StartStored) => [stored.message, stored.conversation]);
    }

    app.decorate<AbuseLimits>('abuseLimits', {
      messagePlaces,
      startPlaces,
      async message(sender, send, stored) {
        return (await messagePlaces(sender)).use(send, stored);
      },
      async start(sender, continues, start, stored) {
        return (await startPlaces(sender, continues)).use(start, stored);
      },
      async report(sender, report, stored) {
        const place = await take(`abuse-reports:${sender.id}`, limitFor(sender, limits().reportsPerHour), HOUR);
        if (place.over) throw tooManyRequests('reports', retryAfterS(place.over));
        return taken([place], (reported: boolean) => [reported]).use(report, stored);
      },
      async blockChange(sender) {
        const place = await take(`abuse-blocks:${sender.id}`, limitFor(sender, limits().blockChangesPerHour), HOUR);
        if (place.over) throw tooManyRequests('blocks', retryAfterS(place.over));
      },
    });
  },
  { name: 'souk-abuse-limits', fastify: '5.x' },
);
