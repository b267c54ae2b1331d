/**
 * Hand-made tokens that Souk accepts: claims of a test's choosing, with Souk's mark (`jti`) made
 * by the same function sign-in uses (src/auth/token-mac.ts), so only what a test changes differs
 * from a token Souk issued.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { newTokenId } from '../../src/auth/token-mac.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The claims with Souk's mark on them; a payload that is not a JSON object, or brings its own `jti`, as it is. */
export function marked<T>(payload: T, tokenMacKey: string): T | Record<string, unknown> {
  if (!isObject(payload) || 'jti' in payload) return payload;
  return { ...payload, jti: newTokenId(payload, tokenMacKey) };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An HS256 token for the user signed with `secret` (not Souk's), its payload padded to about `length` characters. */
export function paddedForgery(secret: string, userId: number, length: number): string {
  const now = Math.floor(Date.now() / 1000);
  const pad = randomBytes(Math.ceil((length * 3) / 4 / 1.34)).toString('base64url');
  const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: String(userId), iat: now, exp: now + 3600, pad })}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}
