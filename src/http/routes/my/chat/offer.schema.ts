/** Schema of POST my/chat/offer (docs/offers.md). */
import { Type } from '@sinclair/typebox';
import { IdBodyField, IdQueryField } from '../../../body.js';
import { ChatMessage } from '../../../../present/chat/schemas.js';
import { CONSUMES, RequestHeaders, SECURITY, success } from '../../common.schema.js';
import { makeOfferErrors } from '../../errors.schema.js';

/** An offer as the routes answer it: a message object of type `offer`. */
export const OFFER_EXAMPLE = {
  message_id: 7,
  con_id: 1,
  source_id: 1,
  message: 'Offer: $1,150.00 for Road bike',
  meta: { offer: { amount: '1150', currency: 'USD', status: 'pending', by: 1, expires_at: '2026-12-04 10:00:00' } },
  attachments: null,
  type: 'offer',
  is_read: 0,
  created_at: '2026-12-02 10:00:00',
  temp_id: '',
};

/**
 * An amount: a positive JSON number or a string of its digits, with at most the currency's decimals.
 * Checked by the use case (domain/chat/offer.ts, parseAmount), whose refusal names the decimals.
 */
export const AmountField = (description: string) =>
  Type.Unknown({ description: `${description} A positive number, or a string of its digits ("1150", "1150.50").` });

export function makeOfferSchema(limits: { bodyLimit: number; textMaxLength: number; maxFiles: number }) {
  return {
    security: SECURITY,
    headers: RequestHeaders,
    tags: ['chat'],
    consumes: CONSUMES,
    operationId: 'makeOffer',
    summary: 'Offer a price',
    description:
      "Souk's own (docs/offers.md): a message of type `offer` whose `meta.offer` holds the amount, the currency, the " +
      'status (`pending`), who made it and when it expires, and whose text every app shows ("Offer: $1,150 for Road ' +
      'bike"). By a participant in the conversation `con_id`, or by a buyer about `listing_id`: in their open ' +
      'conversation about it, else starting one with every rule and limit of `POST my/chat/conversation`. The amount ' +
      "is at most OFFER_MAX_RATIO times the listing's price; each participant makes at most " +
      'OFFERS_PER_CONVERSATION_PER_DAY offers in a conversation a day. The other participant answers it with ' +
      '`POST my/chat/offer/respond`.',
    querystring: Type.Object({
      con_id: IdQueryField('As `con_id` in the body.'),
      listing_id: IdQueryField('As `listing_id` in the body.'),
    }),
    body: Type.Object(
      {
        con_id: IdBodyField('The conversation; or else `listing_id`.'),
        listing_id: IdBodyField('The listing, for a buyer: their open conversation about it, or a new one.'),
        amount: Type.Optional(AmountField("The price offered, in the listing's currency; required.")),
        currency: Type.Optional(
          Type.Unknown({ description: "When given, the listing's currency: a string, its ISO 4217 code (as `GET config` `currency.id`)." }),
        ),
        text: Type.Optional(
          Type.String({ maxLength: limits.textMaxLength, description: "Words of the offerer's, shown below the offer." }),
        ),
      },
      {
        additionalProperties: true,
        examples: [
          { con_id: 1, amount: 1150 },
          { listing_id: 101, amount: '1150', currency: 'USD' },
        ],
      },
    ),
    response: {
      200: success({ ...ChatMessage, examples: [OFFER_EXAMPLE] }, 'The offer, as the message stored.'),
      ...makeOfferErrors(limits),
    },
  };
}
