/**
 * Hand-made tokens that Souk accepts: claims of a test's choosing, with Souk's mark (`jti`) made
 * by the same function sign-in uses (src/auth/token-mac.ts), so only what a test changes differs
 * from a token Souk issued.
 */
import { newTokenId } from '../../src/auth/token-mac.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The claims with Souk's mark on them; a payload that is not a JSON object, or brings its own `jti`, as it is. */
export function marked<T>(payload: T, tokenMacKey: string): T | Record<string, unknown> {
  if (!isObject(payload) || 'jti' in payload) return payload;
  return { ...payload, jti: newTokenId(payload, tokenMacKey) };
}
