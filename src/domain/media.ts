/**
 * A listing's images and terms, and a message's attachments: shapes the marketplace owns, declared
 * once as schemas. The import document validates against them, the store writes them as JSON
 * text in this field order (store/common/media-json.ts), and replies carry that text as stored.
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

export const Attachment = Type.Object(
  {
    // No whitespace, quote, angle bracket, backtick or backslash: RFC 3986 has none unencoded, and
    // each would let the address leave an HTML attribute or read differently to another parser.
    url: Type.String({ minLength: 1, maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s"<>`\\\\]+$' }),
    name: Type.Optional(Type.String({ maxLength: 255 })),
    mime_type: Type.Optional(Type.String({ maxLength: 255 })),
    size: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  },
  { additionalProperties: false },
);
export type Attachment = Static<typeof Attachment>;

/**
 * A file uploaded with the message (docs/files.md), in the plugin's shape and key order (`url`,
 * `type` by MIME type, `mimeType`, `name`, `size`), then Souk's additions: the thumbnail's address
 * and the image's size in pixels.
 */
export const UploadedAttachment = Type.Object(
  {
    url: Str,
    type: Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('audio'), Type.Literal('file')]),
    mimeType: Str,
    name: Str,
    size: Int,
    thumbnail: Type.Optional(Str),
    width: Type.Optional(Int),
    height: Type.Optional(Int),
    /** Audio: its length in seconds, to the tenth. */
    duration: Type.Optional(Type.Number()),
  },
  { additionalProperties: false },
);
export type UploadedAttachment = Static<typeof UploadedAttachment>;

/** What a message's `attachments` holds: addresses a client named (D6) or files it uploaded. */
export const MessageAttachment = Type.Union([Attachment, UploadedAttachment]);
export type MessageAttachment = Static<typeof MessageAttachment>;

/** A listing's contact block, as the favourites list carries it (original/02-favourites.txt [016]). */
export const ListingContact = Type.Object(
  {
    locations: Type.Array(TermObject),
    latitude: Str,
    longitude: Str,
    hide_map: Type.Boolean(),
    zipcode: Str,
    address: Str,
    phone: Str,
    whatsapp_number: Str,
    email: Str,
    website: Str,
    geo_address: Str,
  },
  { additionalProperties: false },
);
export type ListingContact = Static<typeof ListingContact>;

/** The store (shop) a listing belongs to, in the classic list item (docs/routes.md N4). */
export const ListingStore = Type.Object({ id: Int, title: Str }, { additionalProperties: false });
export type ListingStore = Static<typeof ListingStore>;
