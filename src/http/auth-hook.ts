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

export function requireCaller(operation: Operation, deps: AuthDeps): onRequestAsyncHookHandler {
  return async (request) => {
    const result = await authenticate(
      { apiKey: header(request.headers['x-api-key']), authorization: header(request.headers.authorization) },
      operation,
      deps,
    );
    if (!result.ok) throw authError(result.failure);
    request.caller = result.user;
  };
}
