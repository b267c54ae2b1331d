/** Schemas of privacy/listing/block (docs/safety.md). */
import { Type } from '@sinclair/typebox';
import { IdBodyField, IdQueryField } from '../../../body.js';
import { CONSUMES, optionalBody, RequestHeaders, SECURITY, success } from '../../common.schema.js';
import { blockRouteErrors } from '../../errors.schema.js';

const member = { security: SECURITY, headers: RequestHeaders, tags: ['privacy'] };

export const BlockedListings = Type.Array(Type.Object({ id: Type.Integer(), title: Type.String() }, { additionalProperties: false }), {
  description:
    'The listings the caller blocked, in the order blocked, as the plugin lists them; `title` is empty for a listing the site does not show now (pending, draft, expired).',
  examples: [[{ id: 101, title: 'Road bike' }]],
});

const listingId = {
  querystring: Type.Object({ listing_id: IdQueryField('The listing (or in the body).') }),
  body: optionalBody(Type.Object({ listing_id: IdBodyField('The listing.') }, { additionalProperties: true }), [{ listing_id: 101 }]),
};

export function blockedListingsSchema(limits: { bodyLimit: number }) {
  return {
    ...member,
    operationId: 'listBlockedListings',
    summary: 'The listings the caller blocked',
    description: 'The listings the caller blocked, oldest block first: `[{id, title}]`, `[]` when none.',
    response: { 200: success(BlockedListings, 'The blocked listings.'), ...blockRouteErrors(limits, 'listing', 'GET') },
  };
}

export function blockListingSchema(limits: { bodyLimit: number }) {
  return {
    ...member,
    consumes: CONSUMES,
    operationId: 'blockListing',
    summary: 'Block a listing',
    description:
      "Adds the listing to the caller's blocked listings (once, however often asked) and replies with the list. The " +
      "caller's favourites list leaves it out, and the caller cannot start a conversation about it. Blocking your own " +
      "listing: 400; a listing the site does not show (pending, draft, expired) is another's as if missing: 404. " +
      'At most `BLOCK_CHANGES_PER_HOUR` changes an hour. `listing_id` may come in the query string.',
    ...listingId,
    response: { 200: success(BlockedListings, 'The blocked listings after adding.'), ...blockRouteErrors(limits, 'listing', 'POST') },
  };
}

export function unblockListingSchema(limits: { bodyLimit: number }) {
  return {
    ...member,
    consumes: CONSUMES,
    operationId: 'unblockListing',
    summary: 'Unblock a listing',
    description:
      "Removes the listing from the caller's blocked listings and replies with the list. `listing_id` in the query string or the body.",
    ...listingId,
    response: {
      200: success(BlockedListings, 'The blocked listings after removing.'),
      ...blockRouteErrors(limits, 'listing', 'DELETE'),
    },
  };
}
