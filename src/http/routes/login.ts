/** POST {api_base}/login (docs/routes.md, "Sign-in"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { issueToken } from '../../auth/jwt.js';
import { signIn } from '../../domain/sign-in.js';
import { signInReply } from '../../present/account.js';
import { requireApp } from '../auth-hook.js';
import type { RouteDeps } from '../deps.js';
import { badRequest, invalidCredentials, MESSAGES, signInsBusy } from '../errors.js';
import { signInSchema } from './login.schema.js';

/** A field from the body, else the query string (N2); only a non-empty string counts. */
function field(request: FastifyRequest, name: string): string | undefined {
  const pick = (source: unknown) => {
    const value = source && typeof source === 'object' ? (source as Record<string, unknown>)[name] : undefined;
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  return pick(request.body) ?? pick(request.query);
}

export const loginRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const limits = { bodyLimit: deps.bodyLimit };

  app.post('/login', { schema: signInSchema(limits), onRequest: requireApp(deps.auth) }, async (request) => {
    const username = field(request, 'username');
    const password = field(request, 'password');
    if (username === undefined || password === undefined) throw badRequest(MESSAGES.credentialsRequired);
    const rateLimits = request.server.rateLimits;
    await rateLimits.checkSignIn(request.ip);
    const result = await signIn(deps.accounts, username, password, (subject) => rateLimits.admitSignIn(request.ip, subject));
    if (!result.ok && result.error === 'busy') throw signInsBusy();
    if (!result.ok && result.tooDearHashOf !== undefined) {
      request.log.warn(
        { userId: result.tooDearHashOf },
        'sign-in refused: the stored password hash costs more than Souk verifies (docs/hardening.md, "Dear hashes"); give the user a new password',
      );
    }
    if (!result.ok) throw invalidCredentials();
    const { user } = result;
    return signInReply(user, issueToken(deps.auth.settings(), user.id, user.login, deps.accounts.tokenTtlS));
  });
};
