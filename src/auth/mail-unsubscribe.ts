/**
 * The signed one-click unsubscribe link of a mail (RFC 8058): `user` and `sig`, an HMAC-SHA256 of
 * the user's id under a key generated per installation (mail_unsubscribe_key in the settings
 * table, like token_mac_key; never printed). A link is good for its user only: another user's id
 * with it fails.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SettingsRepository } from '../domain/ports.js';
import { newSecret } from './settings.js';

export const MAIL_UNSUBSCRIBE_KEY = 'mail_unsubscribe_key';

/** The installation's key: generated at the first start that needs it; concurrent first starts agree on one. */
export async function mailUnsubscribeKey(settings: SettingsRepository): Promise<string> {
  const stored = (await settings.all())[MAIL_UNSUBSCRIBE_KEY];
  if (stored) return stored;
  await settings.setIfAbsent(MAIL_UNSUBSCRIBE_KEY, newSecret());
  return (await settings.all())[MAIL_UNSUBSCRIBE_KEY]!;
}

function mac(userId: number, key: string): Buffer {
  return createHmac('sha256', key).update(`mail-unsubscribe:${userId}`).digest();
}

export function unsubscribeSignature(userId: number, key: string): string {
  return mac(userId, key).toString('base64url');
}

/** Whether `sig` is the user's signature; only its canonical spelling counts. */
export function validUnsubscribe(userId: number, sig: string, key: string): boolean {
  if (!/^[A-Za-z0-9_-]{43}$/.test(sig) || key === '') return false;
  const presented = Buffer.from(sig, 'base64url');
  if (presented.toString('base64url') !== sig) return false;
  return timingSafeEqual(presented, mac(userId, key));
}
