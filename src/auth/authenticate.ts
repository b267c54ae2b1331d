/**
 * The one auth pipeline every route but sign-in goes through, in the order of D4:
 * REST switch (not the toggle), API key, Authorization header, JWT, the token's user.
 */
import type { User } from '../domain/model.js';
import { checkApiKey } from './api-key.js';
import type { AuthFailure } from './failures.js';
import type { SigningKeys, TokenClaims, TokenVerifier } from './jwt.js';
import type { RevocableToken } from './revoked-tokens.js';
import type { TokenKeys } from './token-mac.js';

/**
 * Which of D4's variants: the toggle skips the REST switch and takes a missing Authorization for
 * "not logged in"; every other route (N1) runs it as the conversation start does.
 */
export type Operation = 'toggleFavourite' | 'startConversation' | 'memberRoute';

export interface Credentials {
  apiKey: string | undefined;
  authorization: string | undefined;
}

export interface AuthSettings extends TokenKeys {
  apiKey: string;
  /** The secret replaced by the last rotation, while its grace lasts. */
  jwtPreviousSecret: SigningKeys['previous'];
  restApiEnabled: boolean;
}

export interface AuthDeps {
  settings: () => AuthSettings;
  verifier: TokenVerifier;
  findUser: (id: number) => Promise<User | undefined>;
  /**
   * Given (ACCEPT_WORDPRESS_TOKENS=true): tokens a WordPress site issued, whose `sub` is the
   * plugin's constant WORDPRESS_TOKEN_SUB, name their user by the login in `name`.
   */
  findUserByLogin?: (login: string) => Promise<User | undefined>;
  /** Whether the token was signed out (auth/revoked-tokens.ts); checked on every request. */
  isRevoked?: (token: Omit<RevocableToken, 'expiresAt'>) => boolean;
  /** Told of each authenticated caller (who is online: events/presence.ts); absent with mail off. */
  seen?: (userId: number) => void;
}

/** The `sub` of every token the Classified Listing plugin issues; its user is in `name` (the login). */
export const WORDPRESS_TOKEN_SUB = '123456789';

/**
 * The JWT secret of every WordPress site with Classified Listing: a constant in the plugin's code
 * (`Rtcl::getApiSecret()`), so public. Compared with, never used: it signs nothing of Souk's.
 */
export const CLASSIFIED_LISTING_SECRET = 'jdkahiu99n23948234n2329339nc248239';

/** ACCEPT_WORDPRESS_TOKENS' exception: the site's tokens carry no mark of Souk's (jwt.ts). */
export const isWordpressToken = (claims: Record<string, unknown>): boolean => claims.sub === WORDPRESS_TOKEN_SUB;

/** The verified token, as revocations name it (its user, digest, issue time and expiry). */
export type VerifiedToken = RevocableToken;

export type AuthResult = { ok: true; user: User; token: VerifiedToken } | { ok: false; failure: AuthFailure };

/** Called between the steps of D4; a hook that throws stops the pipeline with its error. */
export interface AuthHooks {
  /**
   * The token verified (after step 3) with this API key: e.g. count the request against the key's
   * rate limit. Not earlier, so that requests with a bad token cannot use up the key's budget.
   */
  tokenVerified?(apiKey: string): Promise<void>;
}

const BEARER = /^bearer (.*)$/is;
const USER_ID = /^[1-9]\d{0,15}$/;

function bearerToken(header: string | undefined, operation: Operation): { token: string } | { failure: AuthFailure } {
  if (header === undefined || header.trim() === '') {
    // The toggle treats a caller with no credentials as not logged in (D4 step 3).
    return { failure: operation === 'toggleFavourite' ? 'not_logged_in' : 'authorization_missing' };
  }
  const match = BEARER.exec(header);
  if (!match || match[1] === '') return { failure: 'authorization_not_bearer' };
  return { token: match[1] as string };
}

export async function authenticate(
  credentials: Credentials,
  operation: Operation,
  deps: AuthDeps,
  hooks: AuthHooks = {},
): Promise<AuthResult> {
  const settings = deps.settings();
  const appFailure = checkApp(credentials.apiKey, settings, operation !== 'toggleFavourite');
  if (appFailure) return { ok: false, failure: appFailure };

  const bearer = bearerToken(credentials.authorization, operation);
  if ('failure' in bearer) return { ok: false, failure: bearer.failure };

  const token = deps.verifier.check(bearer.token, {
    current: settings.jwtSecret,
    previous: settings.jwtPreviousSecret,
    macKey: settings.tokenMacKey,
  });
  if (!token.ok) return token;
  await hooks.tokenVerified?.(credentials.apiKey as string);

  const user = await tokenUser(token.claims, deps);
  if (!user) return { ok: false, failure: 'not_logged_in' };
  // By the user found, so that a site's token (whose sub names nobody) is revoked per user too.
  const verified = { userId: user.id, digest: token.digest, issuedAt: token.claims.iat, expiresAt: token.claims.exp * 1000 };
  if (deps.isRevoked?.(verified)) return { ok: false, failure: 'token_revoked' };
  if (user.disabled) return { ok: false, failure: 'not_logged_in' };
  return { ok: true, user, token: verified };
}

/**
 * The token's user: by the id in `sub`, or, for a site's token when those are accepted, by the
 * login in `name`. Souk's own tokens carry `name` too, so a user whose id is the plugin's
 * constant is found either way.
 */
async function tokenUser(claims: TokenClaims, deps: AuthDeps): Promise<User | undefined> {
  const { sub, name } = claims;
  if (sub === WORDPRESS_TOKEN_SUB && deps.findUserByLogin && typeof name === 'string' && name !== '') {
    return deps.findUserByLogin(name);
  }
  return typeof sub === 'string' && USER_ID.test(sub) ? deps.findUser(Number(sub)) : undefined;
}

/** D4's first two steps, which sign-in runs too: the REST switch (when `restSwitch`), then the API key. */
export function checkApp(apiKey: string | undefined, settings: AuthSettings, restSwitch: boolean): AuthFailure | null {
  if (restSwitch && !settings.restApiEnabled) return 'rest_api_disabled';
  return checkApiKey(apiKey, settings.apiKey);
}
