/**
 * POST my/chat/message (answer) and PUT my/chat/message (mark read), docs/routes.md; DELETE (take
 * back) and PATCH (correct) one's own message, docs/chat-plus.md.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  DEFAULT_EDIT_RULES,
  deleteOwnMessage,
  editMessage,
  markRead,
  mayAnswer,
  sendMessage,
  type SendMessageError,
} from '../../../../domain/chat/message.js';
import { deleteMessageFiles } from '../../../../domain/files/sweep.js';
import type { Attachment } from '../../../../domain/model.js';
import { chatMessage } from '../../../../present/chat/message.js';
import { optionalId, requestParameters, requiredId, tempId } from '../../../body.js';
import {
  badRequest,
  chatError,
  conversationForbidden,
  MESSAGES,
  otherParticipantLeft,
  ownMessageError,
  type ApiError,
} from '../../../errors.js';
import { requireCaller } from '../../../auth-hook.js';
import { screenedText } from '../../../bad-words.js';
import type { RouteDeps } from '../../../deps.js';
import { deleteMessageSchema, editMessageSchema, markReadSchema, sendMessageSchema } from './message.schema.js';
import { acceptUploads } from '../../../uploads.js';

function sendMessageError(error: SendMessageError, limits: RouteDeps['limits']): ApiError {
  if (error === 'forbidden') return conversationForbidden();
  if (error === 'other_left') return otherParticipantLeft();
  return chatError(error, limits);
}

export const messageRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const member = requireCaller('memberRoute', deps.auth);

  /** The message a request asks for, its files aside (the body: JSON, a form, or an upload form's fields). */
  const messageOf = (query: unknown, body: { text?: string; files?: Attachment[]; temp_id?: number | string | null }) => {
    const params = requestParameters(query, body);
    return {
      conId: requiredId(params, 'con_id'),
      listingId: optionalId(params, 'listing_id'),
      text: screenedText(deps.wordScreen(), body.text ?? ''),
      files: body.files ?? [],
      tempId: tempId(body.temp_id),
    };
  };

  const uploads = await acceptUploads(
    app,
    deps.files,
    {
      subject: 'con_id',
      // Before an upload form's files are read: what sendMessage would refuse, and the abuse limit's place.
      async authorise(request, fields) {
        const input = messageOf(request.query, fields);
        const places = await app.abuseLimits.messagePlaces(request.caller!);
        const may = await mayAnswer(deps.chatReads.repos, request.caller!.id, input, deps.limits).catch(async (err: unknown) => {
          await places.giveBack();
          throw err;
        });
        if (!may.ok) {
          await places.giveBack();
          throw sendMessageError(may.error, deps.limits);
        }
        return { retry: may.retry, places };
      },
    },
    { textMaxLength: deps.limits.textMaxLength, bodyLimit: deps.bodyLimit },
  );

  app.post(
    '/my/chat/message',
    {
      schema: sendMessageSchema({ ...deps.limits, bodyLimit: deps.bodyLimit, uploads: deps.files?.limits }),
      onRequest: member,
      ...uploads.hooks,
    },
    async (request) => {
      const input = { ...messageOf(request.query, request.body), uploads: request.uploads, uploadsSent: request.uploadsSent };
      const send = () => sendMessage(deps.uow, request.caller!.id, input, deps.limits);
      const places = uploads.placesOf(request) ?? (await app.abuseLimits.messagePlaces(request.caller!));
      // A retry returns the message stored before: it stored nothing, unless its files were stored
      // (a retry sent twice at once): those count (abuse-limits.ts).
      const result = await places.use(send, (r) => (r.ok && r.created) || (request.uploads?.length ?? 0) > 0);
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

  const editRules = deps.messageEdits ?? DEFAULT_EDIT_RULES;
  const limits = { ...deps.limits, bodyLimit: deps.bodyLimit };

  app.delete('/my/chat/message', { schema: deleteMessageSchema(limits), onRequest: member }, async (request) => {
    const params = requestParameters(request.query, request.body);
    const conId = requiredId(params, 'con_id');
    const result = await deleteOwnMessage(deps.uow, request.caller!.id, conId, requiredId(params, 'message_id'));
    if (!result.ok) throw ownMessageError(result.error, { limits: deps.limits, windowMs: editRules.windowMs });
    // Once the removal committed: a file another message names too stays (sweep.ts).
    if (deps.files && result.files && result.files.length > 0)
      await deleteMessageFiles(deps.files.storage, deps.files.references, result.files);
    return chatMessage(result.value, deps.presentation);
  });

  app.patch(
    '/my/chat/message',
    { schema: editMessageSchema({ ...limits, windowS: Math.round(editRules.windowMs / 1000) }), onRequest: member },
    async (request) => {
      const params = requestParameters(request.query, request.body);
      const conId = requiredId(params, 'con_id');
      const messageId = requiredId(params, 'message_id');
      const given = (request.body as { text?: unknown }).text;
      if (typeof given !== 'string') throw badRequest(MESSAGES.textNotString);
      // Screened as a send screens its text: refused, or masked, by the `bad_words` in force.
      const text = screenedText(deps.wordScreen(), given);
      const result = await editMessage(deps.uow, request.caller!.id, { conId, messageId, text }, deps.limits, editRules);
      if (!result.ok) throw ownMessageError(result.error, { limits: deps.limits, windowMs: editRules.windowMs });
      return chatMessage(result.value, deps.presentation);
    },
  );
};
