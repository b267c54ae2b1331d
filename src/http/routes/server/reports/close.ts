/** POST {SERVER_API_PREFIX}/reports/{id}/close: as `souk reports close` (docs/server-api.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { closeReport } from '../../../../domain/operator/reports.js';
import type { RouteDeps } from '../../../deps.js';
import { changeOf, operatorError, pathId, READ_BY_HAND } from '../common.js';
import { closeReportSchema } from './close.schema.js';

export const serverCloseReportRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.post(
    '/reports/:id/close',
    { schema: closeReportSchema({ bodyLimit: deps.bodyLimit }), validatorCompiler: READ_BY_HAND },
    async (request) => {
      const id = pathId(request.params);
      const result = await closeReport(deps.server!.operator, changeOf(request), id);
      if (!result.ok) throw operatorError(result, id);
      return { id, status: 'closed' as const, changed: result.changed };
    },
  );
};
