/** GET my/chat, GET my/chat/check, GET and DELETE my/chat/conversation (docs/routes.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { checkConversation, listConversations, readConversation, type MessagePaging } from '../../domain/conversations.js';
import { leaveConversation } from '../../domain/messages.js';
import { conversationListJson, conversationReadJson } from '../../present/chat.js';
import { optionalInteger, pageParameters, requestParameters, requiredId } from '../body.js';
import { badRequest, conversationForbidden, MESSAGES } from '../errors.js';
import { requireCaller } from '../auth-hook.js';
import type { RouteDeps } from '../deps.js';
import {
  CLASSIC_CONVERSATIONS,
  CLASSIC_MESSAGES_MAX,
  CONVERSATIONS_PER_PAGE,
  checkConversationSchema,
  leaveConversationSchema,
  listConversationsSchema,
  MESSAGES_PER_PAGE,
  readConversationSchema,
} from './chat.schema.js';

/** Already JSON text (present/chat.ts), sent as it is, as the conversation start's reply. */
const sendJson = (reply: FastifyReply, json: string) => reply.type('application/json; charset=utf-8').send(json as never);

/** Which messages a read shows: a page (current), or the latest `limit` (classic); both after `after_id`. */
function messagePaging(params: Record<string, unknown>, classic: boolean): MessagePaging {
  const afterId = optionalInteger(params, 'after_id', 0, 0, MESSAGES.afterId);
  if (!classic) return { ...pageParameters(params, MESSAGES_PER_PAGE), afterId };
  const limit = optionalInteger(params, 'limit', MESSAGES_PER_PAGE, 1, MESSAGES.limit);
  if (limit > CLASSIC_MESSAGES_MAX) throw badRequest(MESSAGES.limit);
  return { page: 1, perPage: limit, afterId };
}

export const chatRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const member = requireCaller('memberRoute', deps.auth);
  const classic = deps.presentation.replyFormat === 'classic';

  app.get('/my/chat', { schema: listConversationsSchema(deps), onRequest: member }, async (request, reply) => {
    const params = requestParameters(request.query, request.body);
    // Classic: one bare array, without the conversations whose listing was removed (the apps cannot draw them).
    const paging = classic ? { page: 1, perPage: CLASSIC_CONVERSATIONS } : pageParameters(params, CONVERSATIONS_PER_PAGE);
    const page = await listConversations(deps.chatReads, request.caller!.id, paging, classic);
    return sendJson(reply, conversationListJson(page, deps.presentation));
  });

  app.get('/my/chat/check', { schema: checkConversationSchema(deps), onRequest: member }, async (request, reply) => {
    const params = requestParameters(request.query, request.body);
    const listingId = requiredId(params, 'listing_id');
    const result = await checkConversation(deps.chatReads, request.caller!.id, listingId, messagePaging(params, classic));
    if (!result.ok) throw conversationForbidden();
    return sendJson(reply, result.value ? conversationReadJson(result.value, deps.presentation) : 'false');
  });

  app.get('/my/chat/conversation', { schema: readConversationSchema(deps), onRequest: member }, async (request, reply) => {
    const params = requestParameters(request.query, request.body);
    const conId = requiredId(params, 'con_id');
    const result = await readConversation(deps.chatReads, request.caller!.id, conId, messagePaging(params, classic));
    if (!result.ok) throw conversationForbidden();
    // The caller has it in view: no push for its messages for a while (events/push.ts).
    deps.push?.views.viewed(request.caller!.id, conId, Date.now());
    return sendJson(reply, conversationReadJson(result.value, deps.presentation));
  });

  app.delete('/my/chat/conversation', { schema: leaveConversationSchema(deps), onRequest: member }, async (request, reply) => {
    const params = requestParameters(request.query, request.body);
    const result = await leaveConversation(deps.uow, request.caller!.id, requiredId(params, 'con_id'));
    if (!result.ok) throw conversationForbidden();
    return sendJson(reply, '1');
  });
};
