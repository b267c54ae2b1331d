/** Schema of POST listing/report (docs/safety.md). */
import { Type } from '@sinclair/typebox';
import { IdBodyField, IdQueryField } from '../../body.js';
import { CONSUMES, optionalBody, RequestHeaders, SECURITY, success } from '../common.schema.js';
import { reportListingErrors } from '../errors.schema.js';

export function reportListingSchema(limits: { bodyLimit: number; textMaxLength: number }) {
  return {
    security: SECURITY,
    headers: RequestHeaders,
    tags: ['listings'],
    consumes: CONSUMES,
    operationId: 'reportListing',
    summary: 'Report a listing',
    description:
      "Reports a listing to the operator, as the plugin's ListingApi does: the report is stored (with a `report.created` " +
      "webhook) and counted on the listing; the answer is the listing's report count, this report included. The owner " +
      'of the listing may not report it. One open report per reporter and listing: a repeat answers the count and ' +
      'stores nothing. At most `REPORTS_PER_HOUR` reports an hour. The parameters may come in the query string.',
    querystring: Type.Object({
      listing_id: IdQueryField('The listing, when the body does not name it.'),
      message: Type.Optional(Type.String({ description: 'As `message` in the body.' })),
    }),
    body: optionalBody(
      Type.Object(
        {
          listing_id: IdBodyField('The listing.'),
          message: Type.Optional(
            Type.String({
              maxLength: limits.textMaxLength,
              description: 'Why the listing is reported; may be empty, as the plugin takes it.',
            }),
          ),
        },
        { additionalProperties: true },
      ),
      [{ listing_id: 101, message: 'This is a scam: the seller asks for payment by gift card.' }],
    ),
    response: {
      200: success(Type.Integer({ minimum: 1, description: "The listing's report count.", examples: [3] }), "The listing's report count."),
      ...reportListingErrors(limits),
    },
  };
}
