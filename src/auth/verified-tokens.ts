/**
 * The cache of tokens whose signature and claims were verified, so a token seen again is not
 * verified again. Keyed by the token's text, which a Map hashes more cheaply than SHA-256 would;
 * the caller caches only tokens of bounded length. Failures are never stored, so a client cannot
 * fill it without holding a secret (a WordPress site's is public: ACCEPT_WORDPRESS_TOKENS); and it
 * holds at most `capacity` entries whose texts add up to at most `capacity` typical tokens, the
 * least recently used going first, so long tokens cannot make it weigh more than short ones would.
 */
import { hash } from 'node:crypto';

export const tokenDigest = (token: string): string => hash('sha256', token, 'base64url');

interface Entry<T> {
  value: T;
  /** The entry answers until then (the token's exp, or the end of a rotation's grace). */
  untilMs: number;
}

/** A typical token's length in characters (Souk's about 190 to 280, a WordPress site's about 300). */
const TYPICAL_TOKEN_CHARS = 300;

export class VerifiedTokens<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** The characters of the keys held; at most capacity × TYPICAL_TOKEN_CHARS. */
  private chars = 0;
  private readonly maxChars: number;

  constructor(private readonly capacity: number) {
    this.maxChars = capacity * TYPICAL_TOKEN_CHARS;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string, nowMs: number): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (nowMs > entry.untilMs) {
      this.chars -= key.length;
      return undefined;
    }
    // Re-inserted: a Map iterates in insertion order, so its first key is the least recently used.
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: T, untilMs: number): void {
    if (key.length > this.maxChars) return;
    if (this.entries.delete(key)) this.chars -= key.length;
    while (this.entries.size >= this.capacity || this.chars + key.length > this.maxChars) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      this.chars -= oldest.length;
    }
    this.entries.set(key, { value, untilMs });
    this.chars += key.length;
  }

  clear(): void {
    this.entries.clear();
    this.chars = 0;
  }
}
