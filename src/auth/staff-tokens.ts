/**
 * The console staff's set-up tokens (docs/console.md): 32 random bytes in the link, only their
 * SHA-256 kept. Apart from auth/staff.ts so that `souk staff` loads no password or TOTP library.
 */
import { createHash, randomBytes } from 'node:crypto';

/** A set-up link's token: 32 random bytes, base64url. */
export const newSetupToken = () => randomBytes(32).toString('base64url');

/** What the store keeps of a set-up token. */
export const setupDigest = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** A set-up token as a link carries it (43 base64url characters). */
export const SETUP_TOKEN = /^[A-Za-z0-9_-]{43}$/;
