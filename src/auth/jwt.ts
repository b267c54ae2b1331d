/**
 * JWT checks (D4 step 3, D9): the token's length and form first, then fast-jwt with HS256 pinned
 * for the signature, then the time claims here, then Souk's mark (token-mac.ts). Only tokens that
 * pass are cached (verified-tokens.ts).
 */
import { createSigner, createVerifier, TokenError } from 'fast-jwt';
import type { AuthFailure } from './failures.js';
import { issuedBySouk, newTokenId, type TokenKeys } from './token-mac.js';
import { tokenDigest, VerifiedTokens } from './verified-tokens.js';

export interface TokenClaims {
  sub: string;
  name?: string;
  iat: number;
  exp: number;
  nbf?: number;
  jti?: string;
}

/**
 * A verified token's claims, and what revocations name it by: the SHA-256 digest of its `jti`
 * (Souk's mark, one per token however its text is spelled or re-signed), or of its text for a
 * token without one (a site's, under ACCEPT_WORDPRESS_TOKENS).
 */
export type TokenCheck = { ok: true; claims: TokenClaims; digest: string } | { ok: false; failure: AuthFailure };

/**
 * The longest token looked at, in characters. A Souk token is about 190 characters; a longer one
 * is answered as malformed (SEGMENT_FAULT) before anything decodes or hashes it, so a forged
 * token costs at most this much parsing whatever the request head limit.
 */
export const TOKEN_MAX_LENGTH = 4096;

/**
 * The secrets that sign tokens: the current one, and during a rotation's grace the one before it;
 * and the key of Souk's mark, which every token must carry but those `exempt` lets in.
 */
export interface SigningKeys {
  current: string;
  previous?: { secret: string; untilMs: number } | undefined;
  macKey: string;
}

export interface TokenVerifierOptions {
  /** The most verified tokens kept (TOKEN_CACHE_SIZE); 0 keeps none, so every request verifies its token. */
  cacheSize: number;
  /** Longest lifetime accepted, in seconds (TOKEN_MAX_TTL_S): exp - iat, and exp - now. */
  maxTtlS: number;
  /** Told once each time the configured secrets become unusable; every token is refused until they change. */
  onUnusableSecret?: (problem: string) => void;
  /** Tokens let in without Souk's mark (ACCEPT_WORDPRESS_TOKENS: the site's own). */
  exempt?: (claims: Record<string, unknown>) => boolean;
}

/** Header and payload, each one or more base64url characters, then a signature of zero or more. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/**
 * An HS256 signature is 32 bytes, 43 base64url characters whose last carries 2 spare bits: only
 * the spelling with them at zero is taken, so a token has one text (fast-jwt decodes the others alike).
 */
const CANONICAL_SIGNATURE = /\.[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
const SIGNATURE_LENGTH = 43;
const NBF_LEEWAY_S = 60;
/**
 * The longest token cached, in characters (a Souk token is about 190 to 280, a WordPress site's
 * about 300); a longer one is verified each time it comes. The cache is keyed by the text, and its
 * texts add up to at most TOKEN_CACHE_SIZE typical tokens (verified-tokens.ts).
 */
const CACHED_TOKEN_MAX_LENGTH = 1024;

const refused = (failure: AuthFailure): TokenCheck => ({ ok: false, failure });

/** What revocations name a verified token by (TokenCheck). */
const revocationDigest = (claims: TokenClaims, token: string) => tokenDigest(typeof claims.jti === 'string' ? claims.jti : token);

/** fast-jwt's decoder refuses a header or payload that is not a JSON object with these codes. */
const NOT_JSON_OBJECT = new Set<string>([TokenError.codes.malformed, TokenError.codes.invalidPayload]);

function failureOf(err: unknown): AuthFailure {
  return err instanceof TokenError && NOT_JSON_OBJECT.has(err.code) ? 'token_malformed' : 'token_bad_signature';
}

const isTime = (value: unknown) => typeof value === 'number' && Number.isFinite(value);

/** The time claims of a token whose signature holds; `undefined` when they let it in at `nowMs`. */
function timeFailure(claims: Record<string, unknown>, nowMs: number, maxTtlS: number): AuthFailure | undefined {
  const { exp, iat, nbf } = claims;
  if (exp === undefined) return 'token_without_expiry';
  if (!isTime(exp) || (iat !== undefined && !isTime(iat)) || (nbf !== undefined && !isTime(nbf))) return 'token_time_not_numeric';
  if (iat === undefined) return 'token_without_issue_time';
  const nowS = nowMs / 1000;
  // exp has no leeway; nbf has NBF_LEEWAY_S.
  if (nowS > (exp as number)) return 'token_expired';
  if ((exp as number) - (iat as number) > maxTtlS || (exp as number) - nowS > maxTtlS) return 'token_lifetime_too_long';
  if (nbf !== undefined && (nbf as number) > nowS + NBF_LEEWAY_S) return 'token_not_yet_valid';
  return undefined;
}

type Verify = (token: string) => Record<string, unknown>;

/** Signature only: the claims are checked by timeFailure, and caching is VerifiedTokens' (fast-jwt caches failures too). */
function signatureVerifier(secret: string): Verify {
  if (secret.trim() === '') throw new Error('the JWT secret is empty');
  return createVerifier({ key: secret, algorithms: ['HS256'], ignoreExpiration: true, ignoreNotBefore: true, cache: false }) as Verify;
}

interface Verifiers {
  current: Verify;
  previous?: { verify: Verify; untilMs: number } | undefined;
}

function verifiersFor(keys: SigningKeys): Verifiers {
  const current = signatureVerifier(keys.current);
  const previous = keys.previous && { verify: signatureVerifier(keys.previous.secret), untilMs: keys.previous.untilMs };
  return { current, previous };
}

const sameKeys = (a: SigningKeys, b: SigningKeys) =>
  a.macKey === b.macKey &&
  a.current === b.current &&
  a.previous?.secret === b.previous?.secret &&
  a.previous?.untilMs === b.previous?.untilMs;

export class TokenVerifier {
  private keys: SigningKeys | undefined;
  /** Undefined while the keys are unusable: every token is refused (fail closed). */
  private verifiers: Verifiers | undefined;
  private readonly verified: VerifiedTokens<{ claims: TokenClaims; digest: string }>;
  private signatureChecks = 0;

  constructor(private readonly options: TokenVerifierOptions) {
    this.verified = new VerifiedTokens(options.cacheSize);
  }

  /** How many verified tokens are cached, and how many signatures were checked (tests watch both). */
  stats(): { cachedTokens: number; signatureChecks: number } {
    return { cachedTokens: this.verified.size, signatureChecks: this.signatureChecks };
  }

  check(token: string, keys: SigningKeys, nowMs: number = Date.now()): TokenCheck {
    if (token.length > TOKEN_MAX_LENGTH || !JWT_SHAPE.test(token)) return refused('token_malformed');
    const verifiers = this.use(keys);
    if (!verifiers) return refused('token_bad_signature');
    if (token.length - token.lastIndexOf('.') - 1 === SIGNATURE_LENGTH && !CANONICAL_SIGNATURE.test(token))
      return refused('token_bad_signature');
    const cacheable = token.length <= CACHED_TOKEN_MAX_LENGTH;
    const cached = cacheable ? this.verified.get(token, nowMs) : undefined;
    if (cached) return { ok: true, ...cached };

    const signed = this.verifySignature(verifiers, token, nowMs);
    if ('failure' in signed) return refused(signed.failure);
    const failure = timeFailure(signed.claims, nowMs, this.options.maxTtlS);
    if (failure) return refused(failure);
    // Signed with the secret alone: whoever knows it (a WordPress site's is public) could have made it.
    if (!this.options.exempt?.(signed.claims) && !issuedBySouk(signed.claims, keys.macKey)) return refused('token_bad_signature');
    const claims = signed.claims as unknown as TokenClaims;
    const verified = { claims, digest: revocationDigest(claims, token) };
    if (cacheable) this.verified.set(token, verified, Math.min(claims.exp * 1000, signed.untilMs));
    return { ok: true, ...verified };
  }

  /**
   * The verifiers for these keys, built when the keys change. They are built before they replace
   * the old ones, and replace them together with the keys: a secret that cannot be used leaves no
   * verifier at all, never the previous secret's. Cached tokens go with the keys they were verified by.
   */
  private use(keys: SigningKeys): Verifiers | undefined {
    if (this.keys && sameKeys(keys, this.keys)) return this.verifiers;
    let built: Verifiers | undefined;
    let problem = '';
    try {
      built = verifiersFor(keys);
    } catch (err) {
      problem = (err as Error).message;
    }
    this.keys = keys;
    this.verifiers = built;
    this.verified.clear();
    if (!built) this.options.onUnusableSecret?.(problem);
    return built;
  }

  /** The current secret, then the previous one while its grace lasts; untilMs bounds how long the answer holds. */
  private verifySignature(
    verifiers: Verifiers,
    token: string,
    nowMs: number,
  ): { claims: Record<string, unknown>; untilMs: number } | { failure: AuthFailure } {
    this.signatureChecks++;
    try {
      return { claims: verifiers.current(token), untilMs: Infinity };
    } catch (err) {
      const { previous } = verifiers;
      const failure = failureOf(err);
      if (failure !== 'token_bad_signature' || !previous || nowMs > previous.untilMs) return { failure };
      try {
        return { claims: previous.verify(token), untilMs: previous.untilMs };
      } catch {
        return { failure };
      }
    }
  }
}

export function signToken(keys: TokenKeys, userId: number, login: string, ttlSeconds: number, nowMs: number = Date.now()): string {
  return issueToken(keys, userId, login, ttlSeconds, nowMs).token;
}

export interface IssuedToken {
  token: string;
  /** Seconds since 1970-01-01, as in the claims. */
  iat: number;
  exp: number;
}

/**
 * A token of D9's claims, signed with the JWT secret (so a WordPress site sharing it accepts it
 * too), and a `jti` that is Souk's mark on them (token-mac.ts): unique, so no two tokens are the
 * same text, and made with a key only Souk holds. Every token Souk hands out comes from here.
 */
export function issueToken(keys: TokenKeys, userId: number, login: string, ttlSeconds: number, nowMs: number = Date.now()): IssuedToken {
  const iat = Math.floor(nowMs / 1000);
  const exp = iat + ttlSeconds;
  const claims = { sub: String(userId), name: login, iat, exp };
  const sign = createSigner({ key: keys.jwtSecret, algorithm: 'HS256' });
  return { token: sign({ ...claims, jti: newTokenId(claims, keys.tokenMacKey) }), iat, exp };
}
