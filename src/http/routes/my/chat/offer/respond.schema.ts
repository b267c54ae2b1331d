/** Schema of POST my/chat/offer/respond (docs/offers.md). */
import { Type } from '@sinclair/typebox';
import { IdBodyField, IdQueryField } from '../../../../body.js';
import { ChatMessage } from '../../../../../present/chat/schemas.js';
import { CONSUMES, RequestHeaders, SECURITY, success } from '../../../common.schema.js';
import { respondToOfferErrors } from '../../../errors.schema.js';
import { AmountField, OFFER_EXAMPLE } from '../offer.schema.js';

const ANSWER_EXAMPLE = { ...OFFER_EXAMPLE, message_id: 8, source_id: 2, message: 'Offer accepted: $1,150.00', meta: null, type: 'text' };

export function respondToOfferSchema(limits: { bodyLimit: number }) {
  return {
    security: SECURITY,
    headers: RequestHeaders,
    tags: ['chat'],
    consumes: CONSUMES,
    operationId: 'respondToOffer',
    summary: 'Answer an offer',
    description:
      "Souk's own (docs/offers.md): the participant who did not make the offer accepts, declines or counters it, " +
      'once, while it is pending and not expired (OFFER_TTL_S). The answer is a message ("Offer accepted: $1,150", or the ' +
      "counter-offer, a new pending offer of the caller's), and each offer it changes is sent as `message.update` to " +
      "both participants' event streams. Accepting declines the conversation's other pending offers and sends the " +
      'webhook `offer.accepted`. Of two answers at once, one wins; the other gets 409.',
    querystring: Type.Object({ message_id: IdQueryField('As `message_id` in the body.') }),
    body: Type.Object(
      {
        message_id: IdBodyField('The offer: a message of type `offer`.'),
        // Checked by the route, with its own message.
        action: Type.Optional(Type.Unknown({ description: 'What to do with the offer: `accept`, `decline` or `counter`.' })),
        amount: Type.Optional(AmountField("A counter-offer's amount (required with `counter`, ignored otherwise).")),
      },
      {
        additionalProperties: true,
        examples: [
          { message_id: 7, action: 'accept' },
          { message_id: 7, action: 'counter', amount: 1100 },
        ],
      },
    ),
    response: {
      200: success({ ...ChatMessage, examples: [ANSWER_EXAMPLE] }, 'The answer, as the message stored: a text, or the counter-offer.'),
      ...respondToOfferErrors(limits),
    },
  };
}
