/** Runs the auth pipeline before the body is read, as D4 orders, and attaches the caller. */
import type { onRequestAsyncHookHandler } from 'fastify';
import { authenticate, type AuthDeps, type Operation } from '../auth/authenticate.js';
import type { User } from '../domain/model.js';
import { authError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: User | null;
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Authenticates in D4's order; the rate limits (plugins/rate-limit.ts) count after steps 2 and 4. */
export function requireCaller(operation: Operation, deps: AuthDeps): onRequestAsyncHookHandler {
  return async (request) => {
    const limits = request.server.rateLimits;
    const result = await authenticate(
      { apiKey: header(request.headers['x-api-key']), authorization: header(request.headers.authorization) },
      operation,
      deps,
      { apiKeyAccepted: (apiKey) => limits.checkKey(apiKey) },
    );
    if (!result.ok) throw authError(result.failure);
    await limits.checkUser(result.user.id);
    request.caller = result.user;
  };
}
