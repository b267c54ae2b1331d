/** GET {api_base}/my: the caller's user object (docs/routes.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { userObject } from '../../present/account.js';
import { requireCaller } from '../auth-hook.js';
import type { RouteDeps } from '../deps.js';
import { myAccountSchema } from './my.schema.js';

export const myRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.get(
    '/my',
    { schema: myAccountSchema({ bodyLimit: deps.bodyLimit }), onRequest: requireCaller('memberRoute', deps.auth) },
    async (request) => userObject(request.caller!),
  );
};
