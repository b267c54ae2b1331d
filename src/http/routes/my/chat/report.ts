/** POST my/chat/report: a participant reports a conversation or one of its messages (docs/safety.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { reportConversation } from '../../../../domain/chat/report.js';
import { optionalId, requestParameters, requiredId, checkWords } from '../../../body.js';
import { badRequest, conversationForbidden, MESSAGES } from '../../../errors.js';
import { requireCaller } from '../../../auth-hook.js';
import type { RouteDeps } from '../../../deps.js';
import { reportConversationSchema } from './report.schema.js';

export const chatReportRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.post(
    '/my/chat/report',
    { schema: reportConversationSchema({ ...deps.limits, bodyLimit: deps.bodyLimit }), onRequest: requireCaller('memberRoute', deps.auth) },
    async (request, reply) => {
      const params = requestParameters(request.query, request.body);
      const conId = requiredId(params, 'con_id');
      const messageId = optionalId(params, 'message_id');
      const reason = params.reason;
      if (typeof reason !== 'string' || reason.trim() === '') throw badRequest(MESSAGES.reportReason);
      checkWords(reason, 'reason', deps.limits.textMaxLength);
      const report = () => reportConversation(deps.uow, request.caller!.id, { conId, messageId, reason });
      // A repeat of the caller's open report stores nothing: it does not count (abuse-limits.ts).
      const result = await app.abuseLimits.report(request.caller!, report, (r) => r.ok && r.stored);
      if (!result.ok) throw result.error === 'forbidden' ? conversationForbidden() : badRequest(MESSAGES.messageNotInConversation);
      return reply.type('application/json; charset=utf-8').send('{"reported":true}' as never);
    },
  );
};
