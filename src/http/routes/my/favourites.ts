/** POST {api_base}/my/favourites (the toggle) and GET {api_base}/my/favourites (the list, docs/routes.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listFavourites, toggleFavourite } from '../../../domain/favourites.js';
import { favouritesReplyJson } from '../../../present/favourites.js';
import { listingId, pageParameters } from '../../body.js';
import { badRequest, MESSAGES } from '../../errors.js';
import { requireCaller } from '../../auth-hook.js';
import type { RouteDeps } from '../../deps.js';
import { FAVOURITES_PER_PAGE, favouritesListSchema, toggleFavouriteSchema } from './favourites.schema.js';

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

  app.get(
    '/my/favourites',
    { schema: favouritesListSchema({ bodyLimit: deps.bodyLimit }), onRequest: requireCaller('memberRoute', deps.auth) },
    async (request, reply) => {
      const { page, perPage } = pageParameters(request.query, FAVOURITES_PER_PAGE);
      const found = await listFavourites({ favourites: deps.favouriteLists, findUser: deps.findUser }, request.caller!.id, page, perPage);
      // Already JSON text (present/favourites.ts), sent as it is, as the conversation start's reply.
      return reply.type('application/json; charset=utf-8').send(favouritesReplyJson(found, deps.presentation) as never);
    },
  );
};
