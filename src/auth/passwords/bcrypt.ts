/**
 * bcrypt, plain ($2y$, $2a$, $2b$) and in WordPress 6.8+'s form ($wp$2y$...), through @node-rs/bcrypt.
 * Synchronous: these run on the password threads (thread.ts), never on the event loop. The library's
 * verify compares the digests without an early exit (the Rust bcrypt crate's verify).
 */
import { createHmac } from 'node:crypto';
import { hashSync, verifySync } from '@node-rs/bcrypt';
import { OWN_COST, WORDPRESS_PREFIX } from './forms.js';

/**
 * WordPress 6.8+'s pre-hash (wp_hash_password, wp_check_password): base64 of HMAC-SHA384 keyed
 * 'wp-sha384' over the password's UTF-8 bytes. Its 64 characters keep every byte of a long password
 * in play, where bcrypt alone would ignore all past the 72nd.
 */
function wordPressPrehash(password: string): string {
  return createHmac('sha384', 'wp-sha384').update(password, 'utf8').digest('base64');
}

/**
 * As PHP's password_verify(): $2y$ is the same algorithm as $2b$, and the library reads $2y$, $2a$
 * and $2b$ as they are, so no prefix is rewritten. Bytes past the 72nd are ignored, as in PHP.
 * A malformed hash answers false (the library does not throw for it).
 */
export function verifyBcrypt(password: string, stored: string): boolean {
  return verifySync(password, stored);
}

/** As wp_check_password(): the '$wp' prefix is dropped and the rest is a plain bcrypt hash of the pre-hash. */
export function verifyWordPress(password: string, stored: string): boolean {
  return verifyBcrypt(wordPressPrehash(password), stored.slice(WORDPRESS_PREFIX.length));
}

/**
 * The WordPress 6.8+ form of a password, as wp_hash_password() makes it, except that the password is
 * not trimmed first: wp_check_password() does not trim either, so a trimmed hash could fail the very
 * password it was made from. Surrounding whitespace is the caller's policy.
 */
export function hashWordPress(password: string): string {
  const made = hashSync(wordPressPrehash(password), OWN_COST);
  // The library writes $2b$; PHP (and so WordPress) writes $2y$ for the same algorithm.
  return WORDPRESS_PREFIX + made.replace(/^\$2b\$/, '$2y$');
}
