/** The X-API-KEY check (D4 step 2). */
import { hash, timingSafeEqual } from 'node:crypto';
import type { AuthFailure } from './failures.js';

const digest = (value: string) => hash('sha256', value, 'buffer') as Buffer;

/**
 * Compares in constant time: both sides are hashed to 32 bytes first, so neither the
 * length nor the first differing byte of the presented key changes the time taken.
 * There is no early return on a length mismatch: every key, however long, is compared as
 * two 32-byte digests (`equal` is there so a test can watch the comparison).
 */
export function sameKey(presented: string, expected: string, equal: (a: Buffer, b: Buffer) => boolean = timingSafeEqual): boolean {
  return equal(digest(presented), expectedDigest(expected));
}

// The configured key changes rarely: its digest is computed once per value.
let lastExpected: { key: string; digest: Buffer } | undefined;
function expectedDigest(key: string): Buffer {
  if (lastExpected?.key !== key) lastExpected = { key, digest: digest(key) };
  return lastExpected.digest;
}

export function checkApiKey(header: string | undefined, expected: string): AuthFailure | null {
  if (header === undefined || header === '') return 'api_key_missing';
  return sameKey(header, expected) ? null : 'api_key_invalid';
}
