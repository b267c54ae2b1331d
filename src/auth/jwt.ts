/**
 * JWT checks (D4 step 3, D9): the token's form first, then fast-jwt with HS256 pinned.
 * Verified tokens are cached by fast-jwt until they expire.
 */
import { createSigner, createVerifier, TokenError } from 'fast-jwt';
import type { AuthFailure } from './failures.js';

export interface TokenClaims {
  sub: string;
  name?: string;
  iat?: number;
  exp: number;
  nbf?: number;
}

export type TokenCheck = { ok: true; claims: TokenClaims } | { ok: false; failure: AuthFailure };

/** Header and payload, each one or more base64url characters, then a signature of zero or more. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const NBF_LEEWAY_S = 60;

function isJsonObject(segment: string): boolean {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** Three base64url segments: the cheap part of the form check, made on every request. */
function hasJwtShape(token: string): boolean {
  return JWT_SHAPE.test(token);
}

/** Three base64url segments whose first two decode to JSON objects. */
function isWellFormed(token: string): boolean {
  const [header = '', payload = ''] = token.split('.');
  return hasJwtShape(token) && isJsonObject(header) && isJsonObject(payload);
}

function failureOf(err: unknown): AuthFailure {
  if (!(err instanceof TokenError)) return 'token_bad_signature';
  switch (err.code) {
    case TokenError.codes.expired:
      return 'token_expired';
    case TokenError.codes.missingRequiredClaim:
      return 'token_without_expiry';
    default:
      return 'token_bad_signature';
  }
}

type Verify = (token: string) => Record<string, unknown>;

const CACHE_KEY_WARNING = 'FAST_JWT_CACHE_KEY_BUILDER_SECURITY_RISK';

/**
 * fast-jwt warns on stderr whenever a cache key builder is given, since one that gave two tokens
 * the same key would let one pass for the other. Ours keys each token by itself, so two tokens
 * never share a key: that warning alone is left out; any other still goes through.
 */
function withoutCacheKeyWarning<T>(create: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if ((rest[0] as { code?: unknown } | undefined)?.code === CACHE_KEY_WARNING) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return create();
  } finally {
    process.emitWarning = emitWarning;
  }
}

export class TokenVerifier {
  private verify: Verify | undefined;
  private secret: string | undefined;

  private verifierFor(secret: string): Verify {
    if (this.secret !== secret || !this.verify) {
      this.secret = secret;
      this.verify = withoutCacheKeyWarning(() =>
        createVerifier({
          key: secret,
          algorithms: ['HS256'],
          requiredClaims: ['exp'],
          // nbf is checked below with its leeway; exp has none.
          ignoreNotBefore: true,
          cache: 10_000,
          // The token itself is the key: hashing it (the default) cost more than the cached check.
          cacheKeyBuilder: (token: string) => token,
        }),
      ) as Verify;
    }
    return this.verify;
  }

  check(token: string, secret: string, nowMs: number = Date.now()): TokenCheck {
    if (!hasJwtShape(token)) return { ok: false, failure: 'token_malformed' };
    let claims: Record<string, unknown>;
    try {
      // fast-jwt verifies (or finds in its cache) only tokens whose header and payload are JSON
      // objects, so the costly half of the form check is needed only to name a failure.
      claims = this.verifierFor(secret)(token);
    } catch (err) {
      return { ok: false, failure: isWellFormed(token) ? failureOf(err) : 'token_malformed' };
    }
    if (typeof claims.nbf === 'number' && claims.nbf > nowMs / 1000 + NBF_LEEWAY_S) {
      return { ok: false, failure: 'token_not_yet_valid' };
    }
    return { ok: true, claims: claims as unknown as TokenClaims };
  }
}

export function signToken(secret: string, userId: number, login: string, ttlSeconds: number, nowMs: number = Date.now()): string {
  const iat = Math.floor(nowMs / 1000);
  const sign = createSigner({ key: secret, algorithm: 'HS256' });
  return sign({ sub: String(userId), name: login, iat, exp: iat + ttlSeconds });
}
