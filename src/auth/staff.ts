/**
 * The console staff's secrets (docs/console.md): set-up tokens (kept as their SHA-256 only),
 * passwords (argon2id through @node-rs/argon2, which hashes off the event loop) and TOTP second
 * factors (RFC 6238 through otpauth: 6 digits, 30 s steps, SHA-1, as every authenticator app reads).
 * Nothing here logs; no error carries a secret.
 */
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { MAX_PASSWORD_BYTES } from './passwords.js';

// Loaded at first use: a server whose console nobody signs in to never needs them.
const argon2 = () => import('@node-rs/argon2');

export { newSetupToken, setupDigest, SETUP_TOKEN } from './staff-tokens.js';

const tooLong = (password: string) => Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES;

export async function hashStaffPassword(password: string): Promise<string> {
  if (tooLong(password)) throw new RangeError(`a password must be at most ${MAX_PASSWORD_BYTES} bytes`);
  return (await argon2()).hash(password);
}

export async function verifyStaffPassword(password: string, stored: string): Promise<boolean> {
  if (tooLong(password)) return false;
  try {
    return await (await argon2()).verify(stored, password);
  } catch {
    return false;
  }
}

/** A hash no password matches: an unknown e-mail costs what a wrong password does. */
let dummy: Promise<string> | undefined;
export async function burnStaffVerification(password: string): Promise<void> {
  dummy ??= argon2().then(({ hash }) => hash(randomBytes(32).toString('base64')));
  await verifyStaffPassword(password, await dummy);
}

const PERIOD_S = 30;

/** A new TOTP secret, base32 (what an authenticator app takes typed in). */
export const newTotpSecret = () => new Secret({ size: 20 }).base32;

const totp = (secret: string, label = '') =>
  new TOTP({ issuer: 'Souk console', label, secret: Secret.fromBase32(secret), period: PERIOD_S });

/** The otpauth:// address the QR code carries. */
export const totpUri = (secret: string, email: string) => totp(secret, email).toString();

/** The QR code of the address, as an SVG data URL (the page's CSP lets images come from data:). */
export async function totpQr(uri: string): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

/**
 * The time step of a valid code (the one before or after now counts too: clocks drift), or null.
 * The caller takes the step once (StaffRepository.takeTotpStep), so a code is not taken twice.
 */
export function totpStep(secret: string, code: string, now: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totp(secret).validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD_S) + delta;
}

/** The code for a time: the tests and the browser walk act as the authenticator app. */
export const totpCode = (secret: string, now: number) => totp(secret).generate({ timestamp: now });
