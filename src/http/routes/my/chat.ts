/** GET my/chat, and what the chat's reads share: message paging, replies already JSON text (docs/routes.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { listConversations } from '../../../domain/chat/list.js';
import type { MessagePaging } from '../../../domain/chat/conversation.js';
import { conversationListJson } from '../../../present/chat/list.js';
import { optionalInteger, pageParameters, requestParameters } from '../../body.js';
import { badRequest, MESSAGES } from '../../errors.js';
import { requireCaller } from '../../auth-hook.js';
import type { RouteDeps } from '../../deps.js';
import {
  CLASSIC_CONVERSATIONS,
  CLASSIC_MESSAGES_MAX,
  CONVERSATIONS_PER_PAGE,
  listConversationsSchema,
  MESSAGES_PER_PAGE,
} from './chat.schema.js';

/** Already JSON text (present/chat/list.ts), sent as it is, as the conversation start's reply. */
export const sendJson = (reply: FastifyReply, json: string) => reply.type('application/json; charset=utf-8').send(json as never);

/** Which messages a read shows: a page (current), or the latest `limit` (classic); both after `after_id`. */
export function messagePaging(params: Record<string, unknown>, classic: boolean): MessagePaging {
  const afterId = optionalInteger(params, 'after_id', 0, 0, MESSAGES.afterId);
  if (!classic) return { ...pageParameters(params, MESSAGES_PER_PAGE), afterId };
  const limit = optionalInteger(params, 'limit', MESSAGES_PER_PAGE, 1, MESSAGES.limit);
  if (limit > CLASSIC_MESSAGES_MAX) throw badRequest(MESSAGES.limit);
  return { page: 1, perPage: limit, afterId };
}

export const chatRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const classic = deps.presentation.replyFormat === 'classic';

  app.get(
    '/my/chat',
    { schema: listConversationsSchema(deps), onRequest: requireCaller('memberRoute', deps.auth) },
    async (request, reply) => {
      const params = requestParameters(request.query, request.body);
      // Classic: one bare array, without the conversations whose listing was removed (the apps cannot draw them).
      const paging = classic ? { page: 1, perPage: CLASSIC_CONVERSATIONS } : pageParameters(params, CONVERSATIONS_PER_PAGE);
      const page = await listConversations(deps.chatReads, request.caller!.id, paging, classic);
      return sendJson(reply, conversationListJson(page, deps.presentation));
    },
  );
};
