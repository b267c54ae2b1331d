/** Runs the auth pipeline before the body is read, as D4 orders, and attaches the caller. */
import type { onRequestAsyncHookHandler } from 'fastify';
import { authenticate, checkApp, type AuthDeps, type Operation, type VerifiedToken } from '../auth/authenticate.js';
import { isFailedAuthentication } from '../auth/failures.js';
import type { User } from '../domain/model.js';
import { authError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: User | null;
    /** The caller's token, as verified: a sign-out revokes it. */
    callerToken: VerifiedToken | null;
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Authenticates in D4's order. The rate limits (plugins/rate-limit.ts): a client address over its
 * budget of failed authentications is refused before any credential is read; a failure is counted
 * against its address; the key is counted once the token verified, the user once known (step 4).
 */
export function requireCaller(operation: Operation, deps: AuthDeps): onRequestAsyncHookHandler {
  return async (request) => {
    const limits = request.server.rateLimits;
    await limits.checkAddress(request.ip);
    const result = await authenticate(
      { apiKey: header(request.headers['x-api-key']), authorization: header(request.headers.authorization) },
      operation,
      deps,
      { tokenVerified: (apiKey) => limits.checkKey(apiKey) },
    );
    if (!result.ok) {
      if (isFailedAuthentication(result.failure)) await limits.authFailed(request.ip);
      throw authError(result.failure);
    }
    await limits.checkUser(result.user.id);
    request.caller = result.user;
    request.callerToken = result.token;
    deps.seen?.(result.user.id);
  };
}

/**
 * Sign-in's part of D4: the REST switch and the API key, nothing else (there is no token yet).
 * A client address over its budget of failed authentications is refused first, as on every route.
 */
export function requireApp(deps: AuthDeps): onRequestAsyncHookHandler {
  return async (request) => {
    const limits = request.server.rateLimits;
    await limits.checkAddress(request.ip);
    const failure = checkApp(header(request.headers['x-api-key']), deps.settings(), true);
    if (failure) {
      if (isFailedAuthentication(failure)) await limits.authFailed(request.ip);
      throw authError(failure);
    }
  };
}
