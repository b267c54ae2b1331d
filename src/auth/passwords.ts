/**
 * Sign-in passwords (neighbours.md "Sign-in"): verifies a password against a stored hash of any form
 * the WordPress import brings (phpass $P$/$H$, WordPress 6.8+ $wp$2y$, bcrypt $2y$/$2a$/$2b$,
 * argon2id) and makes the WordPress 6.8+ form for new passwords, so WordPress itself still reads them.
 *
 * - Hashing is done by libraries made for it (passwords/*.ts say which), never by code of ours.
 * - No verification runs on the event loop: bcrypt and argon2id run on libuv's thread pool (napi
 *   AsyncTasks), phpass on a worker thread. Every comparison of digests is constant-time.
 * - Nothing here logs, and no error carries a password or a hash.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import pLimit from 'p-limit';
import type { PasswordHasher } from '../domain/accounts.js';
import { verifyArgon2id } from './passwords/argon2id.js';
import { hashWordPress, verifyBcrypt, verifyWordPress } from './passwords/bcrypt.js';
import { hashForm } from './passwords/forms.js';
import { verifyPhpass } from './passwords/phpass.js';

export type PasswordCheck = { ok: true; rehash?: string } | { ok: false };

/** WordPress refuses longer passwords (wp_check_password, wp_hash_password); so do we, before any hashing. */
export const MAX_PASSWORD_BYTES = 4096;

const tooLong = (password: string) => Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES;

/**
 * Verifies a password (compared as its UTF-8 bytes, as PHP does) against a stored hash of any supported
 * form. `rehash` is the WordPress 6.8+ form to store in place of a phpass hash that matched.
 * An empty, unknown or malformed hash answers { ok: false }; it never throws for one. It rejects only
 * when the machinery itself fails (a crashed worker thread).
 */
export async function verifyPassword(password: string, stored: string): Promise<PasswordCheck> {
  if (tooLong(password)) return { ok: false };
  switch (hashForm(stored)) {
    case 'wordpress':
      return check(await verifyWordPress(password, stored));
    case 'bcrypt':
      return check(await verifyBcrypt(password, stored));
    case 'argon2id':
      return check(await verifyArgon2id(password, stored));
    case 'phpass':
      return (await verifyPhpass(password, stored)) ? { ok: true, rehash: await hashPassword(password) } : { ok: false };
    case 'unsupported':
      return { ok: false };
  }
}

const check = (match: boolean): PasswordCheck => (match ? { ok: true } : { ok: false });

/**
 * The WordPress 6.8+ form ($wp$2y$10$...) of a new password. The password is taken as given, not
 * trimmed (see hashWordPress). Throws a RangeError past MAX_PASSWORD_BYTES, where WordPress would
 * store an unusable '*'.
 */
export async function hashPassword(password: string): Promise<string> {
  if (tooLong(password)) throw new RangeError(`a password must be at most ${MAX_PASSWORD_BYTES} bytes`);
  return hashWordPress(password);
}

let dummy: Promise<string> | undefined;

/**
 * A WordPress 6.8+ hash of a random password, made on first use and kept for the process: verifying
 * against it costs what verifying a user's own hash costs, and it is no secret built into the code.
 */
function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(32).toString('base64')).catch((err: unknown) => {
    dummy = undefined;
    throw err;
  });
  return dummy;
}

/**
 * Spends one verification, the same work as checking a user's password, on a hash nobody's password
 * matches: the sign-in calls it when no user has the name given, so an unknown name costs what a wrong
 * password costs and the timing does not tell which accounts exist.
 */
export async function burnVerification(password: string): Promise<void> {
  await verifyPassword(password, await dummyHash());
}

/**
 * The domain's PasswordHasher port (domain/accounts.ts) over this module, `concurrency`
 * verifications at a time and at most `queue` waiting: each one takes a core for ~50 ms, and a
 * burst of sign-ins running on every core at once would starve the event loop, and with it every
 * other request. Beyond the queue a verification is not made ('busy'), so waiting sign-ins cannot
 * grow without bound.
 */
export function passwordHasher({ concurrency, queue }: { concurrency: number; queue: number }): PasswordHasher {
  const limit = pLimit(concurrency);
  const full = () => limit.activeCount >= concurrency && limit.pendingCount >= queue;
  return {
    verify: (password, hash) => (full() ? Promise.resolve({ ok: false, busy: true }) : limit(() => verifyPassword(password, hash))),
    burn: async (password) => {
      if (full()) return 'busy';
      await limit(() => burnVerification(password));
      return 'done';
    },
  };
}

/** PASSWORD_CONCURRENCY's 0: one less than the cores, at least 1. */
export const defaultPasswordConcurrency = () => Math.max(1, availableParallelism() - 1);
