/**
 * The program of each password thread (threads.ts starts them): every hash computed or verified in
 * Souk runs here, synchronously, never on the event loop.
 *
 * On Linux the thread first lowers its own scheduling priority (the nice value is per thread there),
 * so a burst of sign-ins takes the cores only when the event loop and the database leave them idle:
 * the other routes keep their latency, and the sign-ins wait instead. Elsewhere setpriority would
 * lower the whole process, so the threads keep the process's priority.
 */
import { setPriority } from 'node:os';
import { workerData } from 'node:worker_threads';
import { verifyArgon2id } from './argon2id.js';
import { hashWordPress, verifyBcrypt, verifyWordPress } from './bcrypt.js';
import { hashForm } from './forms.js';
import { verifyPhpass } from './phpass.js';

export type PasswordTask = { op: 'verify'; password: string; stored: string } | { op: 'hash'; password: string };

/** `rehash`: the WordPress 6.8+ form to store in place of a phpass hash that matched. */
export type VerifyOutcome = { ok: true; rehash?: string } | { ok: false };

export interface ThreadSettings {
  /** The nice value the thread takes, 0-19 (19: the lowest priority). */
  nice: number;
}

if (process.platform === 'linux') {
  const { nice } = workerData as ThreadSettings;
  if (nice > 0) setPriority(nice);
}

function verify(password: string, stored: string): VerifyOutcome {
  switch (hashForm(stored)) {
    case 'wordpress':
      return { ok: verifyWordPress(password, stored) };
    case 'bcrypt':
      return { ok: verifyBcrypt(password, stored) };
    case 'argon2id':
      return { ok: verifyArgon2id(password, stored) };
    case 'phpass':
      return verifyPhpass(password, stored) ? { ok: true, rehash: hashWordPress(password) } : { ok: false };
    case 'unsupported':
      return { ok: false };
  }
}

/**
 * Piscina's entry point. A failure is passed on without the library's own error, which could quote
 * what it was given (a hash, a password).
 */
export default function run(task: PasswordTask): VerifyOutcome | string {
  try {
    return task.op === 'verify' ? verify(task.password, task.stored) : hashWordPress(task.password);
  } catch {
    throw new Error(`a password ${task.op === 'verify' ? 'verification' : 'hash'} failed in its thread`);
  }
}
