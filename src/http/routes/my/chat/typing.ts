/** POST my/chat/typing: the caller is typing; the other participant's streams hear it (domain/chat/typing.ts). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestParameters, requiredId } from '../../../body.js';
import { conversationForbidden, noRoute } from '../../../errors.js';
import { requireCaller } from '../../../auth-hook.js';
import type { RouteDeps } from '../../../deps.js';
import { typingSchema } from './typing.schema.js';

export const chatTypingRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.post(
    '/my/chat/typing',
    { schema: typingSchema({ bodyLimit: deps.bodyLimit }), onRequest: requireCaller('memberRoute', deps.auth) },
    async (request, reply) => {
      // As GET my/events: without streams there is nobody to tell.
      if (!deps.typing) throw noRoute();
      const conId = requiredId(requestParameters(request.query, request.body), 'con_id');
      const result = await deps.typing.typing(request.caller!.id, conId);
      if (!result.ok) throw conversationForbidden();
      return reply.code(204).send(null);
    },
  );
};
