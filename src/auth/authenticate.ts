/**
 * The one auth pipeline both operations go through, in the order of D4:
 * REST switch (conversation only), API key, Authorization header, JWT, the token's user.
 */
import type { User } from '../domain/model.js';
import { checkApiKey } from './api-key.js';
import type { AuthFailure } from './failures.js';
import type { SigningKeys, TokenVerifier } from './jwt.js';

export type Operation = 'toggleFavourite' | 'startConversation';

export interface Credentials {
  apiKey: string | undefined;
  authorization: string | undefined;
}

export interface AuthSettings {
  apiKey: string;
  jwtSecret: string;
  /** The secret replaced by the last rotation, while its grace lasts. */
  jwtPreviousSecret: SigningKeys['previous'];
  restApiEnabled: boolean;
}

export interface AuthDeps {
  settings: () => AuthSettings;
  verifier: TokenVerifier;
  findUser: (id: number) => Promise<User | undefined>;
}

export type AuthResult = { ok: true; user: User } | { ok: false; failure: AuthFailure };

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
  if (operation === 'startConversation' && !settings.restApiEnabled) return { ok: false, failure: 'rest_api_disabled' };

  const keyFailure = checkApiKey(credentials.apiKey, settings.apiKey);
  if (keyFailure) return { ok: false, failure: keyFailure };

  const bearer = bearerToken(credentials.authorization, operation);
  if ('failure' in bearer) return { ok: false, failure: bearer.failure };

  const token = deps.verifier.check(bearer.token, { current: settings.jwtSecret, previous: settings.jwtPreviousSecret });
  if (!token.ok) return token;
  await hooks.tokenVerified?.(credentials.apiKey as string);

  const sub = token.claims.sub;
  const user = typeof sub === 'string' && USER_ID.test(sub) ? await deps.findUser(Number(sub)) : undefined;
  if (!user || user.disabled) return { ok: false, failure: 'not_logged_in' };
  return { ok: true, user };
}
