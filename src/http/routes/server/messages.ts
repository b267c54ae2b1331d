/** DELETE {SERVER_API_PREFIX}/messages/{id}: the moderator's removal, as `souk messages delete` (docs/server-api.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { deleteMessage } from '../../../domain/operator/messages.js';
import type { RouteDeps } from '../../deps.js';
import { changeOf, operatorError, pathId, READ_BY_HAND } from './common.js';
import { deleteMessageSchema } from './messages.schema.js';

export const serverMessageRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.delete(
    '/messages/:id',
    { schema: deleteMessageSchema({ bodyLimit: deps.bodyLimit }), validatorCompiler: READ_BY_HAND },
    async (request) => {
      const id = pathId(request.params);
      const result = await deleteMessage(deps.server!.operator, changeOf(request), id);
      if (!result.ok) throw operatorError(result, id);
      return { id, con_id: result.message.conId, removed: true as const };
    },
  );
};
