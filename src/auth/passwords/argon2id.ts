/**
 * argon2id PHC strings ($argon2id$v=19$m=...,t=...,p=...$salt$digest), as PHP's password_hash() makes
 * them, through @node-rs/argon2. Its verify is a napi AsyncTask (libuv's thread pool, off the event
 * loop) and compares in constant time (the RustCrypto argon2 crate).
 */
import { createRequire } from 'node:module';

type Argon2 = typeof import('@node-rs/argon2');
let library: Argon2 | undefined;
/** Loaded on first use: argon2id hashes are rare (imported from a site that made them). */
const argon2 = (): Argon2 => (library ??= createRequire(import.meta.url)('@node-rs/argon2') as Argon2);

export async function verifyArgon2id(password: string, stored: string): Promise<boolean> {
  try {
    return await argon2().verify(stored, password);
  } catch (err) {
    // The library rejects a string it cannot parse with InvalidArg: for us that hash matches nothing.
    if ((err as { code?: unknown }).code === 'InvalidArg') return false;
    throw err;
  }
}
