/** POST (start), GET (read) and DELETE (leave) my/chat/conversation (docs/routes.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { continuesConversation } from '../../../../domain/safety/abuse.js';
import { leaveConversation, mayStart, readConversation, startConversation } from '../../../../domain/chat/conversation.js';
import type { Attachment, User } from '../../../../domain/model.js';
import { conversationReadJson, conversationReplyJson } from '../../../../present/chat/conversation.js';
import { listingId, requestParameters, requiredId, tempId } from '../../../body.js';
import { chatError, conversationForbidden } from '../../../errors.js';
import { requireCaller } from '../../../auth-hook.js';
import { screenedText } from '../../../bad-words.js';
import type { RouteDeps } from '../../../deps.js';
import { messagePaging, sendJson } from '../chat.js';
import { leaveConversationSchema, readConversationSchema, startConversationSchema } from './conversation.schema.js';
import { acceptUploads } from '../../../uploads.js';

export const conversationRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const member = requireCaller('memberRoute', deps.auth);
  const classic = deps.presentation.replyFormat === 'classic';
  /** The message a start asks for, its files aside (the body: JSON, a form, or an upload form's fields). */
  const startOf = (body: { listing_id?: number | string; text?: string; files?: Attachment[]; temp_id?: number | string | null }) => ({
    listingId: listingId(body.listing_id ?? ''),
    text: screenedText(deps.wordScreen(), body.text ?? ''),
    files: body.files ?? [],
    tempId: tempId(body.temp_id),
  });
  const continues = (caller: User, listing: number) => () => continuesConversation(deps.chatReads.repos, listing, caller.id);

  const uploads = await acceptUploads(
    app,
    deps.files,
    {
      subject: 'listing_id',
      // Before an upload form's files are read: what startConversation would refuse, and the abuse limits' places.
      async authorise(request, fields) {
        const caller = request.caller!;
        const input = startOf(fields);
        const places = await app.abuseLimits.startPlaces(caller, continues(caller, input.listingId));
        const reads = { repos: deps.chatReads.repos, findUser: deps.findUser };
        const may = await mayStart(reads, caller, input, deps.limits).catch(async (err: unknown) => {
          await places.giveBack();
          throw err;
        });
        if (!may.ok) {
          await places.giveBack();
          throw chatError(may.error, deps.limits);
        }
        return { retry: may.retry, places };
      },
    },
    { textMaxLength: deps.limits.textMaxLength, bodyLimit: deps.bodyLimit },
  );

  app.post(
    '/my/chat/conversation',
    {
      schema: startConversationSchema({ ...deps.limits, bodyLimit: deps.bodyLimit, uploads: deps.files?.limits }),
      onRequest: requireCaller('startConversation', deps.auth),
      ...uploads.hooks,
    },
    async (request, reply) => {
      const input = { ...startOf(request.body), uploads: request.uploads, uploadsSent: request.uploadsSent };
      const caller = request.caller!;
      const places = uploads.placesOf(request) ?? (await app.abuseLimits.startPlaces(caller, continues(caller, input.listingId)));
      const uploaded = (request.uploads?.length ?? 0) > 0;
      const result = await places.use(
        () => startConversation({ uow: deps.uow, findUser: deps.findUser }, caller, input, deps.limits),
        // What this request stored: a retry stores nothing, a start in an open conversation no conversation
        // (abuse-limits.ts); stored files count as a message, whatever the use case did.
        (r) => ({ message: (r.ok && r.created.message) || uploaded, conversation: r.ok && r.created.conversation }),
      );
      if (!result.ok) throw chatError(result.error, deps.limits);
      // Already JSON text, the schema's bytes (present/chat/conversation.ts); Fastify sends a string with a
      // JSON content type as it is. The type provider only knows the object form, hence the cast.
      const json = conversationReplyJson(result.value, deps.presentation);
      return reply.type('application/json; charset=utf-8').send(json as never);
    },
  );

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
