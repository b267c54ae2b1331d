/**
 * The chat's wire objects, for the reply serialisers and the OpenAPI document: the start's reply
 * and a message (D6), and the reads' objects in both generations (docs/routes.md N4). The
 * presenters beside this file write them; the contract tests check real replies against the
 * recordings.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ListingSummary, MessageAttachmentWire, UserSummary } from '../wire-schemas.js';

const Int = Type.Integer();
const Str = Type.String();
const Digits = Type.String({ pattern: '^[0-9]+$' });
const NullableStr = Type.Union([Str, Type.Null()]);

/** Souk's own part of an offer message (docs/offers.md). */
export const OfferMeta = Type.Object(
  {
    offer: Type.Object({
      amount: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'A decimal string, e.g. "1150" or "1150.5".' }),
      currency: Type.String({ description: "ISO 4217 code: the marketplace's currency." }),
      status: Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('declined'), Type.Literal('countered')]),
      by: Type.Integer({ description: 'The user who made it.' }),
      expires_at: Type.String({ description: 'When a pending offer can no longer be answered, in the time format of `created_at`.' }),
    }),
  },
  { title: 'Offer meta' },
);
export type OfferMeta = Static<typeof OfferMeta>;

/** A message its sender corrected (docs/chat-plus.md). */
export const EditedMeta = Type.Object(
  { edited_at: Type.String({ description: 'When its sender last corrected its text, in the time format of `created_at`.' }) },
  { title: 'Edited meta' },
);
export type EditedMeta = Static<typeof EditedMeta>;

export const ChatMessage = Type.Object({
  message_id: Int,
  con_id: Int,
  source_id: Int,
  message: Str,
  meta: Type.Union([Type.Null(), OfferMeta, EditedMeta], {
    description: "null, an offer's (type `offer`), or `{edited_at}` once its sender corrected its text.",
  }),
  attachments: Type.Union([Type.Null(), Type.Array(MessageAttachmentWire)]),
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

export const ChatPagination = Type.Object({ total: Int, per_page: Int, current_page: Int, total_pages: Int });

/** A message in a list: every value a string or null, as the original's rows (apps compare `source_id` as a string). */
export const MessageRow = Type.Object(
  {
    message_id: Digits,
    con_id: Digits,
    source_id: Digits,
    type: Str,
    message: Str,
    attachments: Type.Union([Str, Type.Null()], { description: 'The JSON text of the attachments array, or null.' }),
    meta: Type.Union([Type.Null(), Str], {
      description: "null, or an offer's meta (type `offer`) or an edited message's `{edited_at}`, as JSON text.",
    }),
    is_read: Type.Union([Type.Literal('0'), Type.Literal('1')]),
    created_at: Str,
  },
  { title: 'Message row (current)' },
);

export const ClassicMessageRow = Type.Object(
  {
    message_id: Digits,
    con_id: Digits,
    source_id: Digits,
    message: Str,
    is_read: Type.Union([Type.Literal('0'), Type.Literal('1')]),
    created_at: Str,
  },
  { title: 'Message row (classic)' },
);

const lastMessageParts = {
  message: NullableStr,
  is_read: NullableStr,
  source_id: NullableStr,
  last_message: NullableStr,
  last_message_created_at: NullableStr,
  display_name: Type.String({ description: "The other participant's display name." }),
  user_login: Str,
  other_id: Digits,
};
const summaryParts = { unread_count: Int, sender: UserSummary, recipient: UserSummary };

/** A conversation's columns, typed as a generation types them. */
function conversationColumns<I extends TSchema, F extends TSchema>(id: I, flag: F) {
  return {
    con_id: id,
    listing_id: id,
    sender_id: id,
    recipient_id: id,
    sender_delete: flag,
    recipient_delete: flag,
    last_message_id: id,
    sender_review: flag,
    recipient_review: flag,
    invert_review: flag,
  };
}

export const ConversationListItem = Type.Object(
  {
    ...conversationColumns(Int, Type.Boolean()),
    created_at: Str,
    updated_at: Str,
    ...lastMessageParts,
    listing: Type.Union([ListingSummary, Type.Null()], { description: 'null once the listing is removed.' }),
    ...summaryParts,
  },
  { title: 'Conversation list item (current)' },
);

export const ClassicConversationListItem = Type.Object(
  { ...conversationColumns(Digits, Digits), created_at: Str, ...lastMessageParts, listing: ListingSummary, ...summaryParts },
  { title: 'Conversation list item (classic)' },
);

export const ConversationList = Type.Union(
  [
    Type.Object({ data: Type.Array(ConversationListItem), pagination: ChatPagination }, { title: 'Conversation list (current)' }),
    Type.Array(ClassicConversationListItem, { maxItems: 50, title: 'Conversation list (classic)' }),
  ],
  { description: 'As `CHAT_REPLY_FORMAT` says: current (an object with `data` and `pagination`) or classic (a bare array).' },
);

const conversationPart = Type.Omit(ConversationReply, ['listing', 'newMessage']);

export const ConversationObject = Type.Object(
  {
    ...conversationPart.properties,
    listing: Type.Union([ListingSummary, Type.Null()]),
    messages: Type.Array(MessageRow, { description: 'Newest first.' }),
    pagination: ChatPagination,
  },
  {
    title: 'Conversation with messages (current)',
    description: 'Keys in this order: con_id, listing, unread_count, sender, recipient, then the rest.',
  },
);

const Bit = Type.Union([Type.Literal(0), Type.Literal(1)]);
export const ClassicConversationObject = Type.Object(
  {
    ...conversationColumns(Int, Bit),
    messages: Type.Array(ClassicMessageRow, { description: 'The latest ones, in the order they were sent.' }),
  },
  { title: 'Conversation with messages (classic)' },
);

export const ConversationRead = Type.Union([ConversationObject, ClassicConversationObject], {
  description: 'As `CHAT_REPLY_FORMAT` says.',
});

export const ConversationCheck = Type.Union([Type.Literal(false), ConversationObject, ClassicConversationObject], {
  description: '`false` when the caller has no open conversation about the listing; else as GET my/chat/conversation.',
});

export const ChangedFlag = Type.Union([Type.Literal(0), Type.Literal(1)], { description: '1 when a message changed, else 0.' });
