import { Type } from '@sinclair/typebox';
import { ListingIdField, TempIdField } from '../body.js';
import { Attachment, ConversationReply } from '../../present/wire-schemas.js';
import { CONSUMES, RequestHeaders, SECURITY, success } from './common.schema.js';
import { startConversationErrors } from './errors.schema.js';

export function startConversationSchema(limits: { bodyLimit: number; textMaxLength: number; maxFiles: number }) {
  return {
    operationId: 'startConversation',
    summary: 'Start a conversation about a listing with its first message',
    description:
      'Opens a conversation between the caller and the listing owner (or reuses the open one) and stores the message. ' +
      'A retry with the same temp_id returns the message stored the first time. Needs the REST interface enabled, ' +
      '`Authorization: Bearer <JWT>` and `X-API-KEY`; the body is JSON (`application/x-www-form-urlencoded` is accepted too).',
    tags: ['chat'],
    security: SECURITY,
    consumes: CONSUMES,
    headers: RequestHeaders,
    body: Type.Object(
      {
        listing_id: ListingIdField,
        text: Type.String({ maxLength: limits.textMaxLength, description: 'Message text; may be empty only when files are attached.' }),
        files: Type.Optional(Type.Array(Attachment, { maxItems: limits.maxFiles })),
        temp_id: Type.Optional(TempIdField),
      },
      { additionalProperties: true, examples: [{ listing_id: 101, text: 'Hello, is the bike still available?', temp_id: 1 }] },
    ),
    response: {
      200: success(ConversationReply, 'The conversation, with the new message in `newMessage`.'),
      ...startConversationErrors(limits),
    },
  };
}
