/** GET {SERVER_API_PREFIX}/users/{id}/export: as `souk users export` (docs/server-api.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { exportUser } from '../../../../domain/operator/users.js';
import type { RouteDeps } from '../../../deps.js';
import { changeOf, operatorError, pathId, READ_BY_HAND } from '../common.js';
import { exportUserSchema } from './export.schema.js';

export const serverExportRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.get(
    '/users/:id/export',
    { schema: exportUserSchema({ bodyLimit: deps.bodyLimit }), validatorCompiler: READ_BY_HAND },
    async (request, reply) => {
      const id = pathId(request.params);
      const result = await exportUser(deps.server!.operator, changeOf(request), id);
      if (!result.ok) throw operatorError(result, id);
      // The document as the CLI writes it, whole: its shape is the export's, not a schema's.
      return reply.type('application/json; charset=utf-8').serializer(JSON.stringify).send(result.document);
    },
  );
};
