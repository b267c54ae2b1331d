/** Schemas of PUT and DELETE {SERVER_API_PREFIX}/listings/{id} (docs/server-api.md). */
import { Type } from '@sinclair/typebox';
import { ImportListing } from '../../../domain/import-document.js';
import { badRequest, conflict, SITE_CATALOG_MESSAGE } from '../../errors.js';
import { serverApiErrors } from '../errors.schema.js';
import { IdParams, ReasonQuery, SERVER_SECURITY, SERVER_TAG, success } from './common.schema.js';

const ListingBody = Type.Composite([Type.Omit(ImportListing, ['id']), Type.Object({ id: Type.Optional(ImportListing.properties.id) })], {
  additionalProperties: false,
  description: "The listing in the import format (docs/cli.md); `id`, when given, must be the path's.",
  examples: [
    {
      owner_id: 7,
      title: 'City bike, 54 cm frame',
      status: 'publish',
      price: '180',
      category: [{ term_id: 12, name: 'Bikes', slug: 'bikes' }],
      created_at: '2026-11-20T08:00:00Z',
    },
  ],
});

export function upsertListingSchema(limits: { bodyLimit: number }) {
  return {
    security: SERVER_SECURITY,
    tags: [SERVER_TAG],
    operationId: 'serverUpsertListing',
    summary: 'Create or replace a listing',
    description:
      "Creates the listing with this id, or replaces it, from the import format (docs/cli.md), validated as `souk import` validates it: a refusal names the field. Its owner (`owner_id`) must exist. Sending the same body again changes nothing. On a WordPress site: 409, the listings are the site's. The reason for the audit log goes in the query string.",
    params: IdParams,
    querystring: ReasonQuery,
    body: ListingBody,
    response: {
      200: success(Type.Object({ id: Type.Integer() }, { examples: [{ id: 101 }] }), 'The listing is stored.'),
      ...serverApiErrors(limits, {
        400: [badRequest('owner_id: user 9 does not exist'), badRequest('status: expected union value')],
        409: [conflict(SITE_CATALOG_MESSAGE)],
      }),
    },
  };
}

export function deleteListingSchema(limits: { bodyLimit: number }) {
  return {
    security: SERVER_SECURITY,
    tags: [SERVER_TAG],
    operationId: 'serverDeleteListing',
    summary: 'Remove a listing',
    description:
      "As `souk listings delete`: the listing leaves every favourite list; its conversations stay (their `listing` is null). Asking again answers 200 with `deleted` false, as does a listing never stored: a retried removal cannot tell the two apart. On a WordPress site: 409 (the site's listings are removed in WordPress).",
    params: IdParams,
    querystring: ReasonQuery,
    response: {
      200: success(
        Type.Object({ id: Type.Integer(), deleted: Type.Boolean() }, { examples: [{ id: 101, deleted: true }] }),
        'The listing is gone.',
      ),
      ...serverApiErrors(limits, { 400: [badRequest('id must be a positive integer.')], 409: [conflict(SITE_CATALOG_MESSAGE)] }),
    },
  };
}
