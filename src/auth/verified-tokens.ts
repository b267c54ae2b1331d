/**
 * The cache of tokens whose signature and claims were verified, so a token seen again is not
 * verified again. Keyed by the token's text, which a Map hashes more cheaply than SHA-256 would;
 * the caller caches only tokens of bounded length. Failures are never stored, so a client cannot
 * fill it without holding a secret; and it holds at most `capacity` entries, the least recently
 * used going first.
 */
import { hash } from 'node:crypto';

export const tokenDigest = (token: string): string => hash('sha256', token, 'base64url');

interface Entry<T> {
  value: T;
  /** The entry answers until then (the token's exp, or the end of a rotation's grace). */
  untilMs: number;
}

export class VerifiedTokens<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string, nowMs: number): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (nowMs > entry.untilMs) return undefined;
    // Re-inserted: a Map iterates in insertion order, so its first key is the least recently used.
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: T, untilMs: number): void {
    if (this.capacity === 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, untilMs });
  }

  clear(): void {
    this.entries.clear();
  }
}
