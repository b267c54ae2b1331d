/** POST {api_base}/my/favourites */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { toggleFavourite } from '../../domain/favourites.js';
import { listingId } from '../body.js';
import { badRequest, MESSAGES } from '../errors.js';
import { requireCaller } from '../auth-hook.js';
import type { RouteDeps } from '../deps.js';
import { toggleFavouriteSchema } from './favourites.schema.js';

export const favouriteRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.post(
    '/my/favourites',
    { schema: toggleFavouriteSchema({ bodyLimit: deps.bodyLimit }), onRequest: requireCaller('toggleFavourite', deps.auth) },
    async (request) => {
      const result = await toggleFavourite(deps.uow, request.caller!.id, listingId(request.body.listing_id));
      if (!result.ok) throw badRequest(MESSAGES.listingNotFound);
      return result.favouriteIds;
    },
  );
};
