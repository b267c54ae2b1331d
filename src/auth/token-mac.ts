/**
 * Souk's mark on the tokens it issues. The JWT secret cannot tell Souk's tokens from forgeries
 * when it is shared with a WordPress site: there it is the Classified Listing plugin's public
 * constant. So each token's `jti` is `nonce.mac`, the mac an HMAC-SHA256 of its claims (sub, name,
 * iat, exp and the random nonce) under a key only Souk holds (token_mac_key, generated per
 * installation, or TOKEN_MAC_KEY). A token whose mac does not hold was not issued by Souk.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What issuing a token takes: the JWT secret signs it, the MAC key marks it as Souk's. */
export interface TokenKeys {
  jwtSecret: string;
  tokenMacKey: string;
}

/** The claims the mark covers; any values (a forged token's are whatever its maker chose). */
export interface MarkedClaims {
  sub?: unknown;
  name?: unknown;
  iat?: unknown;
  exp?: unknown;
}

/** 16 random bytes, then 32 of HMAC-SHA256, both base64url. */
const TOKEN_ID = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

function mac(claims: MarkedClaims, nonce: string, macKey: string): Buffer {
  const input = JSON.stringify([claims.sub ?? null, claims.name ?? null, claims.iat ?? null, claims.exp ?? null, nonce]);
  return createHmac('sha256', macKey).update(input).digest();
}

/** A fresh `jti` for these claims. */
export function newTokenId(claims: MarkedClaims, macKey: string): string {
  const nonce = randomBytes(16).toString('base64url');
  return `${nonce}.${mac(claims, nonce, macKey).toString('base64url')}`;
}

/** base64url's last character carries spare bits: only the spelling with them at zero is taken. */
const canonical = (text: string, bytes: Buffer) => bytes.toString('base64url') === text;

/**
 * Whether the token's `jti` is Souk's mark on its claims. An empty key marks nothing. Only the
 * canonical spelling counts, so a token has one `jti` (revocations name tokens by it).
 */
export function issuedBySouk(claims: MarkedClaims & { jti?: unknown }, macKey: string): boolean {
  const found = typeof claims.jti === 'string' ? TOKEN_ID.exec(claims.jti) : null;
  if (!found || macKey.trim() === '') return false;
  const [, nonce, presentedText] = found as unknown as [string, string, string];
  const presented = Buffer.from(presentedText, 'base64url');
  if (!canonical(nonce, Buffer.from(nonce, 'base64url')) || !canonical(presentedText, presented)) return false;
  return timingSafeEqual(presented, mac(claims, nonce, macKey));
}
