/**
 * Sign-in passwords (docs/routes.md "Sign-in"): verifies a password against a stored hash of any form
 * the WordPress import brings (phpass $P$/$H$, WordPress 6.8+ $wp$2y$, bcrypt $2y$/$2a$/$2b$,
 * argon2id) and makes the WordPress 6.8+ form for new passwords, so WordPress itself still reads them.
 *
 * - Hashing is done by libraries made for it (passwords/*.ts say which), never by code of ours.
 * - No hash is computed on the event loop: all run on the password threads (passwords/thread.ts),
 *   at the lowest scheduling priority on Linux. Every comparison of digests is constant-time.
 * - Nothing here logs, and no error carries a password or a hash.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { PasswordHasher } from '../domain/sign-in.js';
import { bcryptCost, dearHashProblem, hashForm, OWN_COST, type HashForm } from './passwords/forms.js';
import type { VerifyOutcome } from './passwords/thread.js';
import { passwordThreads, type PasswordThreads } from './passwords/threads.js';

export type PasswordCheck = VerifyOutcome;

/** WordPress refuses longer passwords (wp_check_password, wp_hash_password); so do we, before any hashing. */
export const MAX_PASSWORD_BYTES = 4096;

const tooLong = (password: string) => Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES;

/** PASSWORD_CONCURRENCY's 0: as many threads as cores (they yield to everything else). */
export const defaultPasswordConcurrency = () => availableParallelism();

/** PASSWORD_NICE's default: the lowest priority. */
export const DEFAULT_PASSWORD_NICE = 19;

let shared: PasswordThreads | undefined;
/** The threads of the functions below when none are given: the CLI's and the tests'. */
const sharedThreads = () => (shared ??= passwordThreads({ threads: defaultPasswordConcurrency(), nice: DEFAULT_PASSWORD_NICE }));

/**
 * Verifies a password (compared as its UTF-8 bytes, as PHP does) against a stored hash of any supported
 * form. `rehash` is the WordPress 6.8+ form to store in place of a phpass hash that matched.
 * An empty, unknown or malformed hash answers { ok: false }; it never throws for one. It rejects only
 * when the machinery itself fails (a crashed thread).
 */
export async function verifyPassword(password: string, stored: string, threads = sharedThreads()): Promise<PasswordCheck> {
  if (tooLong(password)) return { ok: false };
  return threads.verify(password, stored);
}

/**
 * The WordPress 6.8+ form ($wp$2y$10$...) of a new password. The password is taken as given, not
 * trimmed (see hashWordPress). Throws a RangeError past MAX_PASSWORD_BYTES, where WordPress would
 * store an unusable '*'.
 */
export async function hashPassword(password: string, threads = sharedThreads()): Promise<string> {
  if (tooLong(password)) throw new RangeError(`a password must be at most ${MAX_PASSWORD_BYTES} bytes`);
  return threads.hash(password);
}

const dummies = new WeakMap<PasswordThreads, Promise<string>>();

/**
 * A WordPress 6.8+ hash of a random password, made on first use and kept for the process: verifying
 * against it costs what verifying a user's own hash costs, and it is no secret built into the code.
 */
function dummyHash(threads: PasswordThreads): Promise<string> {
  let dummy = dummies.get(threads);
  if (!dummy) {
    dummy = hashPassword(randomBytes(32).toString('base64'), threads);
    dummy.catch(() => dummies.delete(threads));
    dummies.set(threads, dummy);
  }
  return dummy;
}

/**
 * Spends one verification, the same work as checking a user's password, on a hash nobody's password
 * matches: the sign-in calls it when no user has the name given, so an unknown name costs what a wrong
 * password costs and the timing does not tell which accounts exist.
 */
export async function burnVerification(password: string, threads = sharedThreads()): Promise<void> {
  await verifyPassword(password, await dummyHash(threads), threads);
}

/** What the password threads did (the metrics show it). */
export interface PasswordStats {
  /** Tasks the threads finished: verifications, burns and hashes. */
  tasks: number;
  /** Verifications finished, by the form of the hash verified against (a burn's: 'wordpress'). */
  verifications: Record<HashForm, number>;
}

/** The threads, with each verification counted by form once it has run. */
function countedThreads(threads: PasswordThreads, verifications: Record<HashForm, number>): PasswordThreads {
  return {
    ...threads,
    verify: async (password, stored) => {
      const outcome = await threads.verify(password, stored);
      verifications[hashForm(stored)]++;
      return outcome;
    },
  };
}

/**
 * Whether verifying against `stored` costs at least what a burn does (a bcrypt hash at Souk's own
 * cost or dearer). A refusal by a cheaper hash (phpass, a lower bcrypt cost, argon2id, whose cost
 * is its own) is followed by a burn, so that no refusal is cheaper than an unknown name's.
 */
const costsABurn = (stored: string) => (bcryptCost(stored) ?? 0) >= OWN_COST;

/**
 * The domain's PasswordHasher port (domain/sign-in.ts) over `concurrency` password threads, with at
 * most `queue` verifications waiting for one. Beyond the queue a verification is not made ('busy'),
 * so waiting sign-ins cannot grow without bound. Every refusal costs at least one verification at
 * Souk's own cost: a hash that matches nothing (an unsupported form) or costs more than HASH_BOUNDS
 * is not verified, a burn is made instead; a cheaper hash's refusal is followed by a burn.
 */
export function passwordHasher({
  concurrency,
  queue,
  nice,
}: {
  concurrency: number;
  queue: number;
  nice: number;
}): PasswordHasher & { stats(): PasswordStats } {
  const verifications: Record<HashForm, number> = { wordpress: 0, bcrypt: 0, phpass: 0, argon2id: 0, unsupported: 0 };
  const pool = passwordThreads({ threads: concurrency, nice });
  const threads = countedThreads(pool, verifications);
  let admitted = 0;
  async function admit<T>(work: () => Promise<T>): Promise<T | 'busy'> {
    if (admitted >= concurrency + queue) return 'busy';
    admitted++;
    try {
      return await work();
    } finally {
      admitted--;
    }
  }
  async function verify(password: string, hash: string): Promise<PasswordCheck | { ok: false; tooDear: true }> {
    if (hashForm(hash) === 'unsupported') {
      await burnVerification(password, threads);
      return { ok: false };
    }
    if (dearHashProblem(hash) !== undefined) {
      await burnVerification(password, threads);
      return { ok: false, tooDear: true };
    }
    const check = await verifyPassword(password, hash, threads);
    if (!check.ok && !costsABurn(hash)) await burnVerification(password, threads);
    return check;
  }
  return {
    verify: async (password, hash) => {
      const check = await admit(() => verify(password, hash));
      return check === 'busy' ? { ok: false, busy: true } : check;
    },
    burn: async (password) => ((await admit(() => burnVerification(password, threads))) === 'busy' ? 'busy' : 'done'),
    stats: () => ({ tasks: pool.completed(), verifications: { ...verifications } }),
  };
}
