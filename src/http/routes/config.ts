/** GET {api_base}/config: the settings the apps read at start (docs/app-config.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppConfig } from '../../domain/config.js';
import { appConfigJson } from '../../present/config.js';
import { requireApp } from '../auth-hook.js';
import type { RouteDeps } from '../deps.js';
import { appConfigSchema } from './config.schema.js';

export const appConfigRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  // The reply's text, made again only when a new read of the settings comes (deps.appConfig caches the read).
  let made: { config: AppConfig; json: string } | undefined;

  app.get('/config', { schema: appConfigSchema(deps), onRequest: requireApp(deps.auth) }, async (_request, reply) => {
    const config = await deps.appConfig.get();
    if (made?.config !== config) made = { config, json: appConfigJson(config) };
    return reply.type('application/json; charset=utf-8').send(made.json as never);
  });
};
