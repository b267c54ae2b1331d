/**
 * phpass portable hashes ($P$ from WordPress, $H$ from phpBB: the same algorithm) verified on a worker
 * thread. Computing one is 2^7 to 2^30 rounds of MD5 (WordPress's $P$B: 8192), tens of milliseconds of
 * synchronous work that must not hold up the event loop. The wp-passhash library computes the hash
 * (MD5 from node:crypto, over the password's UTF-8 bytes as PHP does); the comparison with the stored
 * hash is crypto.timingSafeEqual. npm has no maintained phpass library: wp-passhash is a small, complete
 * port that exposes the computation, so the comparison stays ours and constant-time.
 *
 * One worker, started on first use: phpass hashes only come from an import and each is replaced by
 * the WordPress 6.8+ form at its first successful sign-in, so they are rare. The worker holds the
 * process open only while a verification is pending.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

type PhpassJob = { id: number; password: string; stored: string };
/** 'failed': the computation threw (a bug, never a wrong password). */
type PhpassResult = { id: number; outcome: 'match' | 'mismatch' | 'failed' };

/**
 * The worker's program (CommonJS, given to the Worker as source): the same text runs from source
 * under tsx and from dist, on Node 20 and 24, where a .ts worker file would need a loader that Node 20
 * does not give worker threads. The library is required by the absolute path resolved here.
 * `stored` is a well-formed phpass hash (forms.ts); wp-passhash answers '*' for a round count out of
 * range, and that length difference depends on the stored hash alone, never on the password.
 */
const WORKER_SOURCE = `
const { timingSafeEqual } = require('node:crypto');
const { parentPort, workerData } = require('node:worker_threads');
const hasher = require(workerData.wpPasshash).createPasswordHasher();

function matches(password, stored) {
  const computed = Buffer.from(hasher.hash(password, stored), 'utf8');
  const expected = Buffer.from(stored, 'utf8');
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

function outcome(password, stored) {
  try {
    return matches(password, stored) ? 'match' : 'mismatch';
  } catch {
    return 'failed';
  }
}

parentPort.on('message', ({ id, password, stored }) => parentPort.postMessage({ id, outcome: outcome(password, stored) }));
`;

const pending = new Map<number, { resolve: (match: boolean) => void; reject: (err: Error) => void }>();
let nextId = 0;
let worker: Worker | undefined;

/** Resolves whether `password` matches `stored`, a well-formed phpass hash (forms.ts). */
export function verifyPhpass(password: string, stored: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    const thread = phpassWorker();
    thread.ref();
    thread.postMessage({ id, password, stored } satisfies PhpassJob);
  });
}

function phpassWorker(): Worker {
  if (worker) return worker;
  const wpPasshash = createRequire(import.meta.url).resolve('wp-passhash');
  const thread = new Worker(WORKER_SOURCE, { eval: true, workerData: { wpPasshash } });
  thread.on('message', settle);
  // The worker's own error is not passed on: no error of ours quotes what the worker was given.
  thread.on('error', () => stopped(thread));
  thread.on('exit', () => stopped(thread));
  worker = thread;
  return thread;
}

function settle({ id, outcome }: PhpassResult): void {
  const job = pending.get(id);
  if (!job) return;
  pending.delete(id);
  if (outcome === 'failed') job.reject(new Error('phpass verification failed in its worker thread'));
  else job.resolve(outcome === 'match');
  if (pending.size === 0) worker?.unref();
}

/** A worker that errs or exits fails what it was given; the next verification starts a new one. */
function stopped(thread: Worker): void {
  if (worker !== thread) return;
  worker = undefined;
  for (const job of pending.values()) job.reject(new Error('the phpass worker thread stopped'));
  pending.clear();
}
