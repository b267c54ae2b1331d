/** POST {api_base}/logout: the token used stops working (docs/routes.md, "Sign-in"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { userObject } from '../../present/account.js';
import { requireCaller } from '../auth-hook.js';
import type { RouteDeps } from '../deps.js';
import { signOutSchema } from './logout.schema.js';

export const logoutRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.post(
    '/logout',
    { schema: signOutSchema({ bodyLimit: deps.bodyLimit }), onRequest: requireCaller('memberRoute', deps.auth) },
    async (request) => {
      const token = request.callerToken!;
      await deps.accounts.revoked.revoke(token);
      // The devices this session registered get no more of the user's pushes, and may be registered by another.
      await deps.push?.devices.unbind(token.userId, token.digest);
      return { user: userObject(request.caller!) };
    },
  );
};
