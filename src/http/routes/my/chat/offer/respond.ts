/** POST my/chat/offer/respond (docs/offers.md): the other participant accepts, declines or counters an offer. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { respondToOffer, type OfferAction } from '../../../../../domain/chat/offer.js';
import { chatMessage } from '../../../../../present/chat/message.js';
import { requestParameters, requiredId } from '../../../../body.js';
import { badRequest, OFFER_MESSAGES, offerError } from '../../../../errors.js';
import { requireCaller } from '../../../../auth-hook.js';
import type { RouteDeps } from '../../../../deps.js';
import { offerDeps } from '../offer.js';
import { respondToOfferSchema } from './respond.schema.js';

const ACTIONS: readonly unknown[] = ['accept', 'decline', 'counter'] satisfies OfferAction[];

export const offerRespondRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.post(
    '/my/chat/offer/respond',
    { schema: respondToOfferSchema({ bodyLimit: deps.bodyLimit }), onRequest: requireCaller('memberRoute', deps.auth) },
    async (request) => {
      const params = requestParameters(request.query, request.body);
      const messageId = requiredId(params, 'message_id');
      if (!ACTIONS.includes(params.action)) throw badRequest(OFFER_MESSAGES.action);
      const input = { messageId, action: params.action as OfferAction, amount: params.amount };
      const caller = request.caller!;
      const { offer, errors } = await offerDeps(deps);
      // A counter is a new offer: within the sender's message budget (abuse-limits.ts), as every answer.
      const result = await app.abuseLimits.message(
        caller,
        () => respondToOffer(offer, caller, input),
        (r) => r.ok && r.created.message,
      );
      if (!result.ok) throw offerError(result.error, errors);
      return chatMessage(result.value, deps.presentation);
    },
  );
};
