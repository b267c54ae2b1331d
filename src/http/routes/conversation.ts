/** POST {api_base}/my/chat/conversation */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { startConversation } from '../../domain/chat.js';
import { conversationReplyJson } from '../../present/conversation.js';
import { listingId, tempId } from '../body.js';
import { chatError } from '../errors.js';
import { requireCaller } from '../auth-hook.js';
import type { RouteDeps } from '../deps.js';
import { startConversationSchema } from './conversation.schema.js';

export const conversationRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.post(
    '/my/chat/conversation',
    {
      schema: startConversationSchema({ ...deps.limits, bodyLimit: deps.bodyLimit }),
      onRequest: requireCaller('startConversation', deps.auth),
    },
    async (request, reply) => {
      const body = request.body;
      const input = {
        listingId: listingId(body.listing_id),
        text: body.text,
        files: body.files ?? [],
        tempId: tempId(body.temp_id),
      };
      const result = await startConversation({ uow: deps.uow, findUser: deps.findUser }, request.caller!, input, deps.limits);
      if (!result.ok) throw chatError(result.error, deps.limits);
      // Already JSON text, the schema's bytes (present/conversation.ts); Fastify sends a string with a
      // JSON content type as it is. The type provider only knows the object form, hence the cast.
      const json = conversationReplyJson(result.value, deps.presentation);
      return reply.type('application/json; charset=utf-8').send(json as never);
    },
  );
};
