/**
 * POST my/chat/offer (docs/offers.md): the buyer or the listing's owner offers a price in their
 * conversation (`con_id`), or a buyer about a listing (`listing_id`): in their open conversation
 * about it, else starting one with every rule and limit of a start.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { continuesConversation } from '../../../../domain/safety/abuse.js';
import { makeOffer, offerOnListing, type OfferDeps, type OfferResult } from '../../../../domain/chat/offer.js';
import { chatMessage } from '../../../../present/chat/message.js';
import { priceText } from '../../../../present/price.js';
import { optionalId, requestParameters } from '../../../body.js';
import { badRequest, OFFER_MESSAGES, offerError, type OfferErrorContext } from '../../../errors.js';
import { requireCaller } from '../../../auth-hook.js';
import { screenedText } from '../../../bad-words.js';
import type { RouteDeps } from '../../../deps.js';
import { makeOfferSchema } from './offer.schema.js';

/** What the offer routes' use cases take, with the marketplace's currency as it is now, and how their refusals read. */
export async function offerDeps(deps: RouteDeps): Promise<{ offer: OfferDeps; errors: OfferErrorContext }> {
  const { currency } = await deps.appConfig.get();
  const price = deps.presentation.price;
  const money = { currency: currency.id, decimals: price.decimals, priceText: (amount: string) => priceText(amount, price) };
  return {
    offer: { store: { uow: deps.uow, findUser: deps.findUser }, limits: deps.limits, rules: deps.offers, money },
    errors: { limits: deps.limits, decimals: price.decimals, maxRatio: deps.offers.maxRatio, currency: currency.id },
  };
}

/** An optional string parameter: absent, null and "" are none. */
function optionalText(params: Record<string, unknown>, name: string, message: string): string | null {
  const value = params[name];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw badRequest(message);
  return value;
}

export const offerRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.post(
    '/my/chat/offer',
    { schema: makeOfferSchema({ ...deps.limits, bodyLimit: deps.bodyLimit }), onRequest: requireCaller('memberRoute', deps.auth) },
    async (request) => {
      const params = requestParameters(request.query, request.body);
      const conId = optionalId(params, 'con_id');
      const listingId = optionalId(params, 'listing_id');
      if (conId === null && listingId === null) throw badRequest(OFFER_MESSAGES.target);
      const note = optionalText(params, 'text', OFFER_MESSAGES.note);
      const input = {
        amount: params.amount,
        currency: optionalText(params, 'currency', OFFER_MESSAGES.currency),
        note: note === null ? '' : screenedText(deps.wordScreen(), note),
      };
      const caller = request.caller!;
      const { offer, errors } = await offerDeps(deps);
      // Within the sender's budgets as a message, or as a start when it starts a conversation (abuse-limits.ts).
      const result: OfferResult =
        conId !== null
          ? await app.abuseLimits.message(
              caller,
              () => makeOffer(offer, caller, conId, input),
              (r) => r.ok && r.created.message,
            )
          : await app.abuseLimits.start(
              caller,
              () => continuesConversation(deps.chatReads.repos, listingId!, caller.id),
              () => offerOnListing(offer, deps.chatReads.repos, caller, listingId!, input),
              (r) => ({ message: r.ok && r.created.message, conversation: r.ok && r.created.conversation }),
            );
      if (!result.ok) throw offerError(result.error, errors);
      return chatMessage(result.value, deps.presentation);
    },
  );
};
