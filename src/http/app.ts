/** Assembles the Fastify application: parsers, error shapes, auth and the two routes under {api_base}. */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import formbody from '@fastify/formbody';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.js';
import { installErrorHandling } from './error-handler.js';
import type { RouteDeps } from './deps.js';
import { conversationRoutes } from './routes/conversation.js';
import { favouriteRoutes } from './routes/favourites.js';
import { hardening, serverOptions } from './plugins/hardening.js';

export interface AppOptions {
  config: Config;
  deps: RouteDeps;
  logger?: FastifyServerOptions['logger'];
}

export function apiBase(config: Pick<Config, 'apiPrefix'>): string {
  return `${config.apiPrefix}/v1`;
}

export async function buildApp({ config, deps, logger = false }: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger,
    bodyLimit: config.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true },
    // Types are not coerced: "12" is accepted for listing_id by the schema itself, true is not.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    ...serverOptions(config.http),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorateRequest('caller', null);
  // JSON and form bodies only (D2); every other type is refused with 400.
  app.removeContentTypeParser('text/plain');
  await app.register(formbody, { bodyLimit: config.bodyLimit });
  installErrorHandling(app, { bodyLimit: config.bodyLimit, textMaxLength: config.textMaxLength });
  await app.register(hardening, { config });

  await app.register(
    async (api) => {
      await api.register(favouriteRoutes, deps);
      await api.register(conversationRoutes, deps);
    },
    { prefix: apiBase(config) },
  );
  return app;
}
