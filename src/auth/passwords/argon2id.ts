/**
 * argon2id PHC strings ($argon2id$v=19$m=...,t=...,p=...$salt$digest), as PHP's password_hash() makes
 * them, through @node-rs/argon2. Its verify is a napi AsyncTask (libuv's thread pool, off the event
 * loop) and compares in constant time (the RustCrypto argon2 crate).
 */
import { verify } from '@node-rs/argon2';

export async function verifyArgon2id(password: string, stored: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch (err) {
    // The library rejects a string it cannot parse with InvalidArg: for us that hash matches nothing.
    if ((err as { code?: unknown }).code === 'InvalidArg') return false;
    throw err;
  }
}
