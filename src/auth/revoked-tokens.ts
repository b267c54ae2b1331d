/**
 * Tokens signed out before they expired (POST logout), as every instance knows them. A revocation
 * is stored in the database and added here at once, so the instance that revoked refuses the
 * token from the next request on; the others see it at their next poll, within SETTINGS_REFRESH_MS.
 * A revocation is forgotten, here and in the database, once its token has expired: it is refused
 * anyway from then on.
 *
 * Memory: one entry per token signed out and not yet expired. Only a signed-in user can sign out,
 * each logout spends a sign-in (a password verification) and counts against the user's rate limit.
 */
import type { RevocationRepository } from '../domain/ports.js';

/** Rows revoked this long before the newest one seen are read again: instances' clocks differ a little. */
const CLOCK_OVERLAP_MS = 60_000;
/** How often the database's expired revocations are deleted (any instance may do it). */
const FORGET_EVERY_MS = 60_000;

export class RevokedTokens {
  /** Digest -> when the token expires (epoch ms). */
  private readonly expiries = new Map<string, number>();
  private newestRevokedAt = 0;
  private lastForget = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly repo: RevocationRepository,
    private readonly now: () => number = Date.now,
  ) {}

  has = (digest: string): boolean => {
    const expiresAt = this.expiries.get(digest);
    return expiresAt !== undefined && expiresAt > this.now();
  };

  /** Revokes a token until `expiresAt`: here at once, and in the database for every instance. */
  async revoke(digest: string, expiresAt: number): Promise<void> {
    const revokedAt = this.now();
    await this.repo.revoke({ digest, expiresAt, revokedAt });
    this.remember(digest, expiresAt, revokedAt);
  }

  /** Reads the revocations made since the last look, and forgets the expired ones. */
  async refresh(): Promise<void> {
    const now = this.now();
    for (const r of await this.repo.revokedSince(this.newestRevokedAt - CLOCK_OVERLAP_MS, now))
      this.remember(r.digest, r.expiresAt, r.revokedAt);
    for (const [digest, expiresAt] of this.expiries) if (expiresAt <= now) this.expiries.delete(digest);
    if (now - this.lastForget >= FORGET_EVERY_MS) {
      this.lastForget = now;
      await this.repo.forgetExpired(now);
    }
  }

  /** Polls the database; while it is unreachable the revocations known so far stay in force. */
  watch(intervalMs: number): void {
    this.timer = setInterval(() => this.refresh().catch(() => {}), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Revocations held in memory (tests watch it). */
  get size(): number {
    return this.expiries.size;
  }

  private remember(digest: string, expiresAt: number, revokedAt: number): void {
    this.expiries.set(digest, expiresAt);
    if (revokedAt > this.newestRevokedAt) this.newestRevokedAt = revokedAt;
  }
}
