/** POST {SERVER_API_PREFIX}/import: a whole import document, as `souk import` (docs/server-api.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { dearHashProblem } from '../../../auth/passwords/forms.js';
import { parseImportDocument } from '../../../domain/import-document.js';
import { importDocument } from '../../../domain/operator/listings.js';
import { badRequest } from '../../errors.js';
import type { RouteDeps } from '../../deps.js';
import { changeOf, operatorError, READ_BY_HAND } from './common.js';
import { importSchema } from './import.schema.js';

export const serverImportRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const server = deps.server!;
  const schema = importSchema({ bodyLimit: deps.bodyLimit, importLimit: server.importLimit });
  // Read by the import's own parser alone (common.ts, READ_BY_HAND): a large document is walked once.
  app.post('/import', { schema, bodyLimit: server.importLimit, validatorCompiler: READ_BY_HAND }, async (request) => {
    const change = changeOf(request, false);
    if (server.operator.siteOwnsCatalog) throw operatorError({ error: 'site_catalog' }, 0);
    const parsed = parseImportDocument(request.body, dearHashProblem);
    if (!parsed.ok) throw badRequest(`${parsed.path}: ${parsed.problem}`);
    const result = await importDocument(server.operator, change, parsed.catalog);
    if (!result.ok) throw operatorError(result, 0);
    return { users: result.users, listings: result.listings };
  });
};
