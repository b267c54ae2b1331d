/** PUT and DELETE {SERVER_API_PREFIX}/listings/{id}: a marketplace's back end keeps its listings in step (docs/server-api.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { dearHashProblem } from '../../../auth/passwords/forms.js';
import { parseImportDocument } from '../../../domain/import-document.js';
import { deleteListings, upsertListing } from '../../../domain/operator/listings.js';
import { badRequest } from '../../errors.js';
import type { RouteDeps } from '../../deps.js';
import { changeOf, operatorError, pathId, READ_BY_HAND } from './common.js';
import { deleteListingSchema, upsertListingSchema } from './listings.schema.js';
import { entryOf, fieldIn } from './users.js';

export const serverListingRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const server = deps.server!;
  const limits = { bodyLimit: deps.bodyLimit };
  // The body is read by the import's own parser, whose messages name the field as `souk import` does.
  app.put('/listings/:id', { schema: upsertListingSchema(limits), validatorCompiler: READ_BY_HAND }, async (request) => {
    const id = pathId(request.params);
    const change = changeOf(request, false);
    if (server.operator.siteOwnsCatalog) throw operatorError({ error: 'site_catalog' }, id);
    const parsed = parseImportDocument({ listings: [entryOf(request.body, id)] }, dearHashProblem);
    if (!parsed.ok) throw badRequest(`${fieldIn('listings')(parsed.path)}: ${parsed.problem}`);
    const result = await upsertListing(server.operator, change, parsed.catalog.listings[0]!);
    if (!result.ok) throw operatorError(result, id, fieldIn('listings'));
    return { id };
  });

  app.delete('/listings/:id', { schema: deleteListingSchema(limits), validatorCompiler: READ_BY_HAND }, async (request) => {
    const id = pathId(request.params);
    const result = await deleteListings(server.operator, changeOf(request), [id]);
    if (!result.ok) throw operatorError(result, id);
    return { id, deleted: result.deleted.length > 0 };
  });
};
