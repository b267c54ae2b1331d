/** GET my/chat/check: the caller's open conversation about a listing, if any (docs/routes.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { checkConversation } from '../../../../domain/chat/list.js';
import { conversationReadJson } from '../../../../present/chat/conversation.js';
import { requestParameters, requiredId } from '../../../body.js';
import { conversationForbidden } from '../../../errors.js';
import { requireCaller } from '../../../auth-hook.js';
import type { RouteDeps } from '../../../deps.js';
import { messagePaging, sendJson } from '../chat.js';
import { checkConversationSchema } from './check.schema.js';

export const chatCheckRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const classic = deps.presentation.replyFormat === 'classic';

  app.get(
    '/my/chat/check',
    { schema: checkConversationSchema(deps), onRequest: requireCaller('memberRoute', deps.auth) },
    async (request, reply) => {
      const params = requestParameters(request.query, request.body);
      const listingId = requiredId(params, 'listing_id');
      const result = await checkConversation(deps.chatReads, request.caller!.id, listingId, messagePaging(params, classic));
      if (!result.ok) throw conversationForbidden();
      return sendJson(reply, result.value ? conversationReadJson(result.value, deps.presentation) : 'false');
    },
  );
};
