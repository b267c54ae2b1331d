/** POST my/chat/message (answer) and PUT my/chat/message (mark read), docs/routes.md. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { markRead, sendMessage, type SendMessageError } from '../../../../domain/chat/message.js';
import { chatMessage } from '../../../../present/chat/message.js';
import { optionalId, requestParameters, requiredId, tempId } from '../../../body.js';
import { chatError, conversationForbidden, otherParticipantLeft, type ApiError } from '../../../errors.js';
import { requireCaller } from '../../../auth-hook.js';
import { screenedText } from '../../../bad-words.js';
import type { RouteDeps } from '../../../deps.js';
import { markReadSchema, sendMessageSchema } from './message.schema.js';
import { acceptUploads } from '../../../uploads.js';

function sendMessageError(error: SendMessageError, limits: RouteDeps['limits']): ApiError {
  if (error === 'forbidden') return conversationForbidden();
  if (error === 'other_left') return otherParticipantLeft();
  return chatError(error, limits);
}

export const messageRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const member = requireCaller('memberRoute', deps.auth);
  const uploads = await acceptUploads(app, deps.files, deps.bodyLimit);

  app.post(
    '/my/chat/message',
    {
      schema: sendMessageSchema({ ...deps.limits, bodyLimit: deps.bodyLimit, uploads: deps.files?.limits }),
      onRequest: member,
      ...uploads,
    },
    async (request) => {
      const params = requestParameters(request.query, request.body);
      const input = {
        conId: requiredId(params, 'con_id'),
        listingId: optionalId(params, 'listing_id'),
        text: screenedText(deps.wordScreen(), request.body.text),
        files: request.body.files ?? [],
        uploads: request.uploads,
        tempId: tempId(request.body.temp_id),
      };
      const send = () => sendMessage(deps.uow, request.caller!.id, input, deps.limits);
      // A retry returns the message stored before: it stored nothing (abuse-limits.ts).
      const result = await app.abuseLimits.message(request.caller!, send, (r) => r.ok && r.created);
      if (!result.ok) throw sendMessageError(result.error, deps.limits);
      return chatMessage(result.value, deps.presentation);
    },
  );

  app.put('/my/chat/message', { schema: markReadSchema(deps), onRequest: member }, async (request) => {
    const params = requestParameters(request.query, request.body);
    const conId = requiredId(params, 'con_id');
    const result = await markRead(deps.uow, request.caller!.id, conId, requiredId(params, 'message_id'));
    if (!result.ok) throw conversationForbidden();
    return result.changed ? 1 : 0;
  });
};
