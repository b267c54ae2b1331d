/**
 * Tokens signed out before they expired (POST logout), as every instance knows them. A revocation
 * is stored in the database and added here at once, so the instance that revoked refuses the
 * token from the next request on; the others see it at their next poll, within SETTINGS_REFRESH_MS.
 * A revocation is forgotten, here and in the database, once its token has expired: it is refused
 * anyway from then on.
 *
 * Memory is bounded by the users, not by the sign-outs: each user keeps at most
 * REVOCATIONS_PER_USER revoked tokens. Beyond them the oldest give way to a mark, "every token of
 * this user issued at or before T is revoked", T the newest issue time among those given way. So a
 * user who signs out of more than that many tokens still valid also signs out of their other tokens
 * issued by then (their other devices sign in again); one who signs out now and then never does.
 * The rule depends only on the set of revocations, not on the order they arrive in, so every
 * instance reaches the same marks (the database holds them too).
 */
import type { Revocation, RevocationRepository } from '../domain/ports.js';

/** A token as revocations name it. */
export interface RevocableToken {
  userId: number;
  /** The SHA-256 of its jti (of its text when it has none). */
  digest: string;
  /** Its `iat`, in seconds. */
  issuedAt: number;
  /** When it expires (epoch ms). */
  expiresAt: number;
}

/** Revoked tokens kept one by one per user; beyond them, a mark. */
export const REVOCATIONS_PER_USER = 16;
/** Rows revoked this long before the newest one seen are read again: instances' clocks differ a little. */
const CLOCK_OVERLAP_MS = 60_000;
/** How often the database's expired revocations are deleted (any instance may do it). */
const FORGET_EVERY_MS = 60_000;
const MARK = '<=';

const markDigest = (issuedAt: number) => `${MARK}${issuedAt}`;

interface UserRevocations {
  /** Every token issued at or before `issuedAt` is revoked, until `expiresAt`. */
  mark?: { issuedAt: number; expiresAt: number } | undefined;
  /** Digest -> the revoked token's issue time and expiry. */
  tokens: Map<string, { issuedAt: number; expiresAt: number }>;
}

/**
 * The mark that keeps `tokens` within the cap: the issue time of the newest token beyond the
 * REVOCATIONS_PER_USER newest ones, or undefined when there are not that many.
 */
function overflowMark(issueTimes: number[]): number | undefined {
  if (issueTimes.length <= REVOCATIONS_PER_USER) return undefined;
  return [...issueTimes].sort((a, b) => b - a)[REVOCATIONS_PER_USER];
}

export class RevokedTokens {
  private readonly users = new Map<number, UserRevocations>();
  private newestRevokedAt = 0;
  private lastForget = 0;
  private timer: NodeJS.Timeout | undefined;

  /** `maxTtlS` (TOKEN_MAX_TTL_S): a mark lasts until every token it covers has expired. */
  constructor(
    private readonly repo: RevocationRepository,
    private readonly maxTtlS: number,
    private readonly now: () => number = Date.now,
  ) {}

  has = (token: Omit<RevocableToken, 'expiresAt'>): boolean => {
    const user = this.users.get(token.userId);
    if (!user) return false;
    const now = this.now();
    if (user.mark && token.issuedAt <= user.mark.issuedAt && user.mark.expiresAt > now) return true;
    const revoked = user.tokens.get(token.digest);
    return revoked !== undefined && revoked.expiresAt > now;
  };

  /** Revokes a token until it expires: here at once, and in the database for every instance. */
  async revoke(token: RevocableToken): Promise<void> {
    const subject = String(token.userId);
    const revokedAt = this.now();
    await this.repo.revoke({ subject, digest: token.digest, issuedAt: token.issuedAt, expiresAt: token.expiresAt, revokedAt });
    this.remember({ subject, digest: token.digest, issuedAt: token.issuedAt, expiresAt: token.expiresAt, revokedAt });
    const kept = await this.repo.revocationsOf(subject, revokedAt);
    const mark = overflowMark(kept.filter((r) => !r.digest.startsWith(MARK)).map((r) => r.issuedAt));
    if (mark === undefined) return;
    const markRow = { subject, digest: markDigest(mark), issuedAt: mark, expiresAt: (mark + this.maxTtlS) * 1000, revokedAt };
    await this.repo.revoke(markRow);
    this.remember(markRow);
    await this.repo.forgetCovered(subject, mark, markRow.digest);
  }

  /** Reads the revocations made since the last look, and forgets the expired ones. */
  async refresh(): Promise<void> {
    const now = this.now();
    for (const r of await this.repo.revokedSince(this.newestRevokedAt - CLOCK_OVERLAP_MS, now)) this.remember(r);
    for (const [userId, user] of this.users) {
      if (user.mark && user.mark.expiresAt <= now) user.mark = undefined;
      for (const [digest, t] of user.tokens) if (t.expiresAt <= now) user.tokens.delete(digest);
      if (!user.mark && user.tokens.size === 0) this.users.delete(userId);
    }
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

  /** Revoked tokens and marks held in memory (tests watch it). */
  get size(): number {
    let size = 0;
    for (const user of this.users.values()) size += user.tokens.size + (user.mark ? 1 : 0);
    return size;
  }

  private remember(r: Revocation): void {
    if (r.revokedAt > this.newestRevokedAt) this.newestRevokedAt = r.revokedAt;
    const userId = Number(r.subject);
    const user: UserRevocations = this.users.get(userId) ?? { tokens: new Map() };
    this.users.set(userId, user);
    if (r.digest.startsWith(MARK)) this.markUpTo(user, r.issuedAt, r.expiresAt);
    else if (!user.mark || r.issuedAt > user.mark.issuedAt) user.tokens.set(r.digest, { issuedAt: r.issuedAt, expiresAt: r.expiresAt });
    // The same cap here as in the database, whatever order the rows arrive in.
    const mark = overflowMark([...user.tokens.values()].map((t) => t.issuedAt));
    if (mark !== undefined) this.markUpTo(user, mark, (mark + this.maxTtlS) * 1000);
  }

  private markUpTo(user: UserRevocations, issuedAt: number, expiresAt: number): void {
    if (user.mark && user.mark.issuedAt >= issuedAt) return;
    user.mark = { issuedAt, expiresAt };
    for (const [digest, t] of user.tokens) if (t.issuedAt <= issuedAt) user.tokens.delete(digest);
  }
}

/**
 * Revokes every token of the user issued up to now (a disabled or erased user's), as a mark in the
 * database: every instance refuses them from its next poll, within SETTINGS_REFRESH_MS.
 */
export async function revokeEveryToken(repo: RevocationRepository, userId: number, maxTtlS: number, now = Date.now()): Promise<void> {
  const issuedAt = Math.floor(now / 1000);
  await repo.revoke({
    subject: String(userId),
    digest: markDigest(issuedAt),
    issuedAt,
    expiresAt: (issuedAt + maxTtlS) * 1000,
    revokedAt: now,
  });
  await repo.forgetCovered(String(userId), issuedAt, markDigest(issuedAt));
}
