/**
 * Signed, expiring file addresses (FILES_ACCESS=participants, docs/files.md): a file Souk serves
 * is readable only through an address given to a participant of its conversation, until the
 * address expires. The signature is an HMAC-SHA256 of the file's key and the expiry, under a key
 * derived from token_mac_key (generated per installation, never shared with a WordPress site).
 * The expiry is rounded up to a step of a 24th of the lifetime, so that the address a client is
 * given stays the same from one poll to the next and its image cache keeps working: an address
 * lives from FILES_URL_TTL_S to a 24th longer.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface FileAddressSigning {
  /** The address a participant is given: signed when it names a file under `filesUrl`, else as stored. */
  sign(url: string): string;
  /** Whether the file `key` may be served to a request that brought these query values, and for how long. */
  check(key: string, expires: unknown, signature: unknown): FileAddressCheck;
}

export type FileAddressCheck = { ok: true; secondsLeft: number } | { ok: false; problem: 'expired' | 'invalid' };

export interface FileAddressOptions {
  /** FILES_URL: the addresses under it are Souk's to serve, and to sign. */
  filesUrl: string;
  ttlS: number;
  /** token_mac_key as the settings say now. */
  macKey: () => string;
  now?: () => number;
}

const EXPIRES = /^[1-9]\d{0,11}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

export function fileAddressSigning(o: FileAddressOptions): FileAddressSigning {
  const now = o.now ?? Date.now;
  const prefix = `${o.filesUrl}/`;
  const step = Math.max(60, Math.floor(o.ttlS / 24));
  let derived: { from: string; key: Buffer } | undefined;
  // Its own key, so that no signature made here is ever valid as a token's mark, or the other way round.
  const keyOf = (macKey: string) => {
    if (derived?.from !== macKey) derived = { from: macKey, key: createHmac('sha256', macKey).update('souk file addresses').digest() };
    return derived.key;
  };
  const mac = (key: string, expires: string) => createHmac('sha256', keyOf(o.macKey())).update(`${key}\n${expires}`).digest();
  return {
    sign(url) {
      if (!url.startsWith(prefix) || url.includes('?')) return url;
      const expires = String(Math.ceil((Math.floor(now() / 1000) + o.ttlS) / step) * step);
      return `${url}?expires=${expires}&signature=${mac(url.slice(prefix.length), expires).toString('base64url')}`;
    },
    check(key, expires, signature) {
      if (typeof expires !== 'string' || typeof signature !== 'string' || !EXPIRES.test(expires) || !SIGNATURE.test(signature))
        return { ok: false, problem: 'invalid' };
      const given = Buffer.from(signature, 'base64url');
      // base64url's last character carries spare bits: only the spelling with them at zero is taken.
      if (given.toString('base64url') !== signature || !timingSafeEqual(given, mac(key, expires))) return { ok: false, problem: 'invalid' };
      const secondsLeft = Number(expires) - Math.floor(now() / 1000);
      return secondsLeft > 0 ? { ok: true, secondsLeft } : { ok: false, problem: 'expired' };
    },
  };
}
