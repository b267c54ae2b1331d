/**
 * The interface's wire objects as TypeBox schemas, in the interface's field order.
 * Fastify compiles them into the reply serialisers. Images, terms and attachments are the
 * domain's own shapes (domain/media.ts), carried as they are. The chat's are in chat/schemas.ts.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Attachment, ImageObject, ListingContact, ListingStore, TermObject } from '../domain/media.js';

export { Attachment };

const Int = Type.Integer();
const Str = Type.String();

/**
 * A message's attachment as replies write it: the keys of both forms (D6's and an upload's,
 * domain/media.ts) in one order that keeps each form's own, so one serialiser writes either.
 */
export const MessageAttachmentWire = Type.Object(
  {
    url: Str,
    type: Type.Optional(Str),
    mimeType: Type.Optional(Str),
    name: Type.Optional(Str),
    mime_type: Type.Optional(Str),
    size: Type.Optional(Int),
    thumbnail: Type.Optional(Str),
    width: Type.Optional(Int),
    height: Type.Optional(Int),
    duration: Type.Optional(Type.Number({ description: 'An audio file: its length in seconds, to the tenth.' })),
  },
  { additionalProperties: false },
);

export const ListingSummary = Type.Object({
  id: Int,
  title: Str,
  url: Str,
  images: Type.Array(ImageObject),
  amount: Str,
  raw_price: Str,
  location: Type.Array(TermObject),
  category: Type.Array(TermObject),
});
export type ListingSummary = Static<typeof ListingSummary>;

export const UserSummary = Type.Object({
  id: Int,
  name: Str,
  email: Str,
  phone: Str,
  whatsapp: Str,
  website: Str,
  profile_picture: Str,
});
export type UserSummary = Static<typeof UserSummary>;

export const FavouriteIds = Type.Array(Int);

/** The user object of sign-in, sign-out and GET my (docs/routes.md N4), in the original's key order. */
export const UserObject = Type.Object({
  first_name: Str,
  last_name: Str,
  description: Str,
  id: Int,
  isAdmin: Type.Boolean(),
  email: Str,
  username: Str,
  phone: Str,
  whatsapp_number: Str,
  website: Str,
  locations: Type.Array(TermObject),
  zipcode: Str,
  address: Str,
  latitude: Str,
  longitude: Str,
  pp_thumb_url: Str,
});
export type UserObject = Static<typeof UserObject>;

export const SignInReply = Type.Object({
  token_type: Type.Literal('Bearer'),
  iat: Type.Integer({ description: 'When the token was issued, seconds since 1970-01-01.' }),
  expires_in: Type.Integer({ description: 'When the token expires, seconds since 1970-01-01 (an absolute time, as the original sends).' }),
  jwt_token: Str,
  user: UserObject,
});
export type SignInReply = Static<typeof SignInReply>;

export const SignOutReply = Type.Object({ user: UserObject });

/** A PHP DateTime as json_encode writes it (original/02-favourites.txt [016] `date_created`). */
const PhpDateTime = Type.Object({
  date: Type.String({ description: '`YYYY-MM-DD HH:MM:SS.000000` in the site time zone.' }),
  timezone_type: Type.Literal(1),
  timezone: Type.String({ description: 'The offset from UTC, e.g. `+00:00`.' }),
});

// The list item's parts, in the original's key order; both generations put them together (N4).
const itemHead = { listing_id: Int, author_id: Int };
const itemPricing = {
  title: Str,
  pricing_type: Type.Union([Type.Literal('price'), Type.Literal('range'), Type.Literal('disabled')]),
  raw_price: Str,
  raw_max_price: Str,
  price: Str,
  max_price: Type.String({ description: 'The top of a range; "0" when there is none.' }),
  price_type: Str,
  price_units: Type.Array(Str),
  price_unit: Str,
  categories: Type.Array(TermObject),
};
const itemState = { ad_type: Str, status: Str, images: Type.Array(ImageObject), date_created: PhpDateTime, created_at: Str };
const itemTail = { view_count: Int, promotions: Type.Array(Str), badges: Type.Array(Str), contact: ListingContact };

/** A listing in GET my/favourites, current generation (original/02-favourites.txt). */
export const ListingListItem = Type.Object(
  {
    ...itemHead,
    author: UserObject,
    ...itemPricing,
    tags: Type.Union([Type.Literal(false), Type.Array(TermObject, { minItems: 1 })], { description: '`false` when the listing has none.' }),
    ...itemState,
    ...itemTail,
  },
  { additionalProperties: false, title: 'Listing list item (current)' },
);

/** The same in the classic generation (original-2x/02-favourites.txt), with `created_at_gmt` and `store` (N4's Fix). */
export const ClassicListingListItem = Type.Object(
  {
    ...itemHead,
    ...itemPricing,
    ...itemState,
    created_at_gmt: Type.String({ description: 'created_at in UTC.' }),
    ...itemTail,
    store: Type.Object(ListingStore.properties, { description: '`{"id":0,"title":""}` when the listing belongs to no store.' }),
  },
  { additionalProperties: false, title: 'Listing list item (classic)' },
);

export const Pagination = Type.Object({ total: Int, count: Int, per_page: Int, current_page: Int, total_pages: Int });

export const FavouritesReply = Type.Object({
  data: Type.Array(Type.Union([ListingListItem, ClassicListingListItem]), {
    description: 'Current or classic items, as `CHAT_REPLY_FORMAT` says; most recently added first.',
  }),
  pagination: Type.Union([Pagination, Type.Null()], { description: 'null when the caller has no favourite to show.' }),
});
export type Pagination = Static<typeof Pagination>;
