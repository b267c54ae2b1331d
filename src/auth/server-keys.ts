/**
 * Server keys (docs/server-api.md): made here, `sk_` and 32 random bytes, and kept by the store as
 * their SHA-256 only. A fast hash is enough: a key carries 256 bits of chance, so no list of guesses
 * reaches one, and a request then pays a hash, not a password's work. A presented key is hashed
 * and its digest compared with every active key's in constant time (no early exit, no lookup by
 * the digest the client chose). The servers keep the keys in memory, read again every
 * SETTINGS_REFRESH_MS, so a revocation holds on every instance within that.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { latestRead } from '../domain/latest-read.js';
import type { ActiveServerKey, ServerKeyRepository } from '../domain/server-keys.js';

export const SERVER_KEY_PREFIX = 'sk_';
/** `sk_` and 43 base64url characters (32 bytes). */
const SERVER_KEY_FORM = /^sk_[A-Za-z0-9_-]{43}$/;

export const newServerKey = (): string => SERVER_KEY_PREFIX + randomBytes(32).toString('base64url');

export const serverKeyDigest = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** A last use is written at most this often per key and instance: a request writes nothing else. */
const USED_EVERY_MS = 60_000;

export class ServerKeys {
  private keys: Array<{ name: string; digest: Buffer }> = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly lastWritten = new Map<string, number>();

  constructor(
    private readonly repo: ServerKeyRepository,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** A revocation read by a later refresh is not undone by an earlier one that ends after it. */
  readonly refresh = latestRead(
    () => this.repo.active(),
    (active: ActiveServerKey[]) => {
      this.keys = active.map((k) => ({ name: k.name, digest: Buffer.from(k.digest, 'hex') }));
    },
  );

  watch(everyMs: number): void {
    this.timer = setInterval(() => this.refresh().catch(this.onError), everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The name of the key `Authorization: Bearer sk_...` presents, or undefined when it is none of them. */
  nameOf(authorization: string | undefined, now = Date.now()): string | undefined {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
    if (!match || !SERVER_KEY_FORM.test(match[1]!)) return undefined;
    const digest = createHash('sha256').update(match[1]!, 'utf8').digest();
    let found: string | undefined;
    for (const key of this.keys) if (timingSafeEqual(key.digest, digest) && found === undefined) found = key.name;
    if (found !== undefined) this.used(found, now);
    return found;
  }

  private used(name: string, now: number): void {
    if (now - (this.lastWritten.get(name) ?? 0) < USED_EVERY_MS) return;
    this.lastWritten.set(name, now);
    this.repo.used(name, now).catch(this.onError);
  }
}
