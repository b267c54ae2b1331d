/**
 * The interface's wire objects as TypeBox schemas, in the interface's field order.
 * Fastify compiles them into the reply serialisers. Images, terms and attachments are the
 * domain's own shapes (domain/media.ts), carried as they are.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Attachment, ImageObject, TermObject } from '../domain/media.js';

export { Attachment };

const Int = Type.Integer();
const Str = Type.String();

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

export const ChatMessage = Type.Object({
  message_id: Int,
  con_id: Int,
  source_id: Int,
  message: Str,
  meta: Type.Null(),
  attachments: Type.Union([Type.Null(), Type.Array(Attachment)]),
  type: Str,
  is_read: Int,
  created_at: Str,
  temp_id: Str,
});
export type ChatMessage = Static<typeof ChatMessage>;

export const ConversationReply = Type.Object({
  con_id: Int,
  listing: ListingSummary,
  unread_count: Int,
  sender: UserSummary,
  recipient: UserSummary,
  listing_id: Int,
  sender_id: Int,
  recipient_id: Int,
  sender_delete: Type.Boolean(),
  recipient_delete: Type.Boolean(),
  last_message_id: Int,
  sender_review: Type.Boolean(),
  recipient_review: Type.Boolean(),
  invert_review: Type.Boolean(),
  created_at: Str,
  updated_at: Str,
  last_message: Str,
  last_message_created_at: Str,
  newMessage: ChatMessage,
});
export type ConversationReply = Static<typeof ConversationReply>;

export const FavouriteIds = Type.Array(Int);

/** The user object of sign-in, sign-out and GET my (neighbours.md N4), in the original's key order. */
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
