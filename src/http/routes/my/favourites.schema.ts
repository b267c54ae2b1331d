import { Type } from '@sinclair/typebox';
import { ListingIdField, MAX_PER_PAGE, PageField } from '../../body.js';
import { FavouriteIds, FavouritesReply } from '../../../present/wire-schemas.js';
import { CONSUMES, RequestHeaders, SECURITY, success } from '../common.schema.js';
import { pagedListErrors, toggleFavouriteErrors } from '../errors.schema.js';

/** GET my/favourites' page size when the request names none (docs/routes.md). */
export const FAVOURITES_PER_PAGE = 20;

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

export function favouritesListSchema(limits: { bodyLimit: number }) {
  return {
    operationId: 'listFavourites',
    summary: "The caller's favourites, a page at a time",
    description:
      "The caller's favourite listings that are published, most recently added first; the others stay in the list the " +
      'toggle replies with but are not shown. `{"data":[],"pagination":null}` when there is none to show. The items ' +
      'take the shape `CHAT_REPLY_FORMAT` names: current, or classic (no `author` nor `tags`; `created_at_gmt` and `store`).',
    tags: ['favourites'],
    security: SECURITY,
    headers: RequestHeaders,
    querystring: Type.Object({
      page: PageField('The page, from 1 (default 1).'),
      per_page: PageField(`Listings per page, 1 to ${MAX_PER_PAGE} (default ${FAVOURITES_PER_PAGE}).`),
    }),
    response: { 200: success(FavouritesReply, 'A page of favourites and where it stands.'), ...pagedListErrors(limits) },
  };
}
