import { Type } from '@sinclair/typebox';
import { ListingIdField, TempIdField } from '../body.js';
import { Attachment, ConversationReply } from '../../present/wire-schemas.js';

export function startConversationSchema(limits: { textMaxLength: number; maxFiles: number }) {
  return {
    summary: 'Start a conversation about a listing with its first message',
    description:
      'Opens a conversation between the caller and the listing owner (or reuses the open one) and stores the message. ' +
      'A retry with the same temp_id returns the message stored the first time.',
    tags: ['chat'],
    body: Type.Object(
      {
        listing_id: ListingIdField,
        text: Type.String({ maxLength: limits.textMaxLength, description: 'Message text; may be empty only when files are attached.' }),
        files: Type.Optional(Type.Array(Attachment, { maxItems: limits.maxFiles })),
        temp_id: Type.Optional(TempIdField),
      },
      { additionalProperties: true },
    ),
    response: { 200: ConversationReply },
  };
}
