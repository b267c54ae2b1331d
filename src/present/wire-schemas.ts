/**
 * The interface's wire objects as TypeBox schemas, in the interface's field order.
 * Fastify compiles them into the reply serialisers, and the import document reuses
 * the image and term shapes so that what goes in is what comes out.
 */
import { Type, type Static } from '@sinclair/typebox';

const Int = Type.Integer();
const Str = Type.String();

const ImageSize = Type.Object({ src: Str, width: Int, height: Int }, { additionalProperties: false });

export const ImageObject = Type.Object(
  {
    ID: Int,
    title: Str,
    caption: Str,
    url: Str,
    alt: Str,
    src: Str,
    srcset: Type.Union([Type.Literal(false), Str]),
    sizes: Type.Object({ full: ImageSize, medium: ImageSize, thumbnail: ImageSize }, { additionalProperties: false }),
    mime_type: Str,
    src_w: Int,
    src_h: Int,
    srcset_sizes: Str,
  },
  { additionalProperties: false },
);
export type ImageObject = Static<typeof ImageObject>;

export const TermObject = Type.Object(
  {
    term_id: Int,
    name: Str,
    slug: Str,
    term_group: Int,
    term_taxonomy_id: Int,
    taxonomy: Str,
    description: Str,
    parent: Int,
    count: Int,
    filter: Str,
  },
  { additionalProperties: false },
);
export type TermObject = Static<typeof TermObject>;

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

export const Attachment = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$' }),
    name: Type.Optional(Type.String({ maxLength: 255 })),
    mime_type: Type.Optional(Type.String({ maxLength: 255 })),
    size: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  },
  { additionalProperties: false },
);
export type Attachment = Static<typeof Attachment>;

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
