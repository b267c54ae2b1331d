import { Type } from '@sinclair/typebox';
import { ListingIdField } from '../body.js';
import { FavouriteIds } from '../../present/wire-schemas.js';

export const toggleFavouriteSchema = {
  summary: 'Toggle a listing in the caller\'s favourites',
  description: 'Adds the listing to the caller\'s favourites if absent, removes it if present. Replies with the final list, oldest addition first.',
  tags: ['favourites'],
  body: Type.Object({ listing_id: ListingIdField }, { additionalProperties: true }),
  response: { 200: FavouriteIds },
};
