/**
 * argon2id PHC strings ($argon2id$v=19$m=...,t=...,p=...$salt$digest), as PHP's password_hash() makes
 * them, through @node-rs/argon2. Synchronous: it runs on the password threads (thread.ts). The
 * library compares in constant time (the RustCrypto argon2 crate).
 */
import { createRequire } from 'node:module';

type Argon2 = typeof import('@node-rs/argon2');
let library: Argon2 | undefined;
/** Loaded on first use: argon2id hashes are rare (imported from a site that made them). */
const argon2 = (): Argon2 => (library ??= createRequire(import.meta.url)('@node-rs/argon2') as Argon2);

export function verifyArgon2id(password: string, stored: string): boolean {
  try {
    return argon2().verifySync(stored, password);
  } catch (err) {
    // The library rejects a string it cannot parse with InvalidArg: for us that hash matches nothing.
    if ((err as { code?: unknown }).code === 'InvalidArg') return false;
    throw err;
  }
}
