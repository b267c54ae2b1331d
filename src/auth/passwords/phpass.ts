/**
 * phpass portable hashes ($P$ from WordPress, $H$ from phpBB: the same algorithm): 2^7 to 2^30 rounds
 * of MD5 (WordPress's $P$B: 8192), synchronous, so they run on the password threads (thread.ts).
 * The wp-passhash library computes the hash (MD5 from node:crypto, over the password's UTF-8 bytes as
 * PHP does); the comparison with the stored hash is crypto.timingSafeEqual. npm has no maintained
 * phpass library: wp-passhash is a small, complete port that exposes the computation, so the
 * comparison stays ours and constant-time.
 */
import { timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';

type WpPasshash = typeof import('wp-passhash');
let hasher: ReturnType<WpPasshash['createPasswordHasher']> | undefined;
/** Loaded on first use: phpass hashes only come from an import and are replaced at their first sign-in. */
const phpass = () => (hasher ??= (createRequire(import.meta.url)('wp-passhash') as WpPasshash).createPasswordHasher());

/**
 * Whether `password` matches `stored`, a well-formed phpass hash (forms.ts). wp-passhash answers '*'
 * for a round count out of range; that length difference depends on the stored hash alone, never on
 * the password.
 */
export function verifyPhpass(password: string, stored: string): boolean {
  const computed = Buffer.from(phpass().hash(password, stored), 'utf8');
  const expected = Buffer.from(stored, 'utf8');
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
