import { Type } from '@sinclair/typebox';
import { ListingIdField } from '../body.js';
import { FavouriteIds } from '../../present/wire-schemas.js';
import { CONSUMES, RequestHeaders, SECURITY, success } from './common.schema.js';
import { toggleFavouriteErrors } from './errors.schema.js';

export function toggleFavouriteSchema(limits: { bodyLimit: number }) {
  return {
    operationId: 'toggleFavourite',
    summary: "Toggle a listing in the caller's favourites",
    description:
      "Adds the listing to the caller's favourites if absent, removes it if present. Replies with the final list, " +
      'oldest addition first. Needs `Authorization: Bearer <JWT>` and `X-API-KEY`; the body is JSON ' +
      '(`application/x-www-form-urlencoded` is accepted too). Unknown extra fields are ignored.',
    tags: ['favourites'],
    security: SECURITY,
    consumes: CONSUMES,
    headers: RequestHeaders,
    body: Type.Object({ listing_id: ListingIdField }, { additionalProperties: true, examples: [{ listing_id: 101 }] }),
    response: {
      200: success(FavouriteIds, "The caller's favourite listing ids after the change, oldest addition first."),
      ...toggleFavouriteErrors(limits),
    },
  };
}
