/** POST {api_base}/login, POST {api_base}/logout, GET {api_base}/my (docs/routes.md, "Sign-in"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { issueToken } from '../../auth/jwt.js';
import { signIn } from '../../domain/accounts.js';
import { signInReply, userObject } from '../../present/account.js';
import { requireApp, requireCaller } from '../auth-hook.js';
import type { RouteDeps } from '../deps.js';
import { badRequest, invalidCredentials, MESSAGES, signInsBusy } from '../errors.js';
import { myAccountSchema, signInSchema, signOutSchema } from './account.schema.js';

/** A field from the body, else the query string (N2); only a non-empty string counts. */
function field(request: FastifyRequest, name: string): string | undefined {
  const pick = (source: unknown) => {
    const value = source && typeof source === 'object' ? (source as Record<string, unknown>)[name] : undefined;
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  return pick(request.body) ?? pick(request.query);
}

export const accountRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
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

  app.post('/logout', { schema: signOutSchema(limits), onRequest: requireCaller('memberRoute', deps.auth) }, async (request) => {
    const token = request.callerToken!;
    await deps.accounts.revoked.revoke(token);
    // The devices this session registered get no more of the user's pushes, and may be registered by another.
    await deps.push?.devices.unbind(token.userId, token.digest);
    return { user: userObject(request.caller!) };
  });

  app.get('/my', { schema: myAccountSchema(limits), onRequest: requireCaller('memberRoute', deps.auth) }, async (request) =>
    userObject(request.caller!),
  );
};
