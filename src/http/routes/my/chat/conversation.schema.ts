/** Schemas of POST, GET and DELETE my/chat/conversation (docs/routes.md). */
import { Type } from '@sinclair/typebox';
import { IdBodyField, IdQueryField, ListingIdField, TempIdField } from '../../../body.js';
import { ConversationRead, ConversationReply } from '../../../../present/chat/schemas.js';
import { Attachment } from '../../../../present/wire-schemas.js';
import { uploadForm } from './uploads.schema.js';
import type { UploadLimits } from '../../../../domain/files/upload.js';
import { CONSUMES, optionalBody, RequestHeaders, SECURITY, success } from '../../common.schema.js';
import { chatRouteErrors, conversationReadErrors, startConversationErrors } from '../../errors.schema.js';
import { FORMATS, member, messagePaging } from '../chat.schema.js';

export function startConversationSchema(limits: { bodyLimit: number; textMaxLength: number; maxFiles: number; uploads?: UploadLimits }) {
  return {
    operationId: 'startConversation',
    summary: 'Start a conversation about a listing with its first message',
    ...uploadForm(
      limits.uploads,
      'Opens a conversation between the caller and the listing owner (or reuses the open one) and stores the message. ' +
        'A retry with the same temp_id returns the message stored the first time. Needs the REST interface enabled, ' +
        '`Authorization: Bearer <JWT>` and `X-API-KEY`; the body is JSON (`application/x-www-form-urlencoded` is accepted too).',
    ),
    tags: ['chat'],
    security: SECURITY,
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

export function readConversationSchema(limits: { bodyLimit: number }) {
  return {
    ...member,
    operationId: 'readConversation',
    summary: 'A conversation and its messages',
    description:
      'For a participant who has not left it. Reading marks nothing read (PUT my/chat/message does). Current: newest ' +
      `first, a page at a time. Classic: the latest \`limit\` messages in the order they were sent. ${FORMATS}`,
    querystring: Type.Object({ con_id: IdQueryField('The conversation.'), ...messagePaging }),
    response: { 200: success(ConversationRead, 'The conversation with a page of its messages.'), ...conversationReadErrors(limits) },
  };
}

export function leaveConversationSchema(limits: { bodyLimit: number }) {
  return {
    ...member,
    operationId: 'leaveConversation',
    summary: 'Leave (hide) a conversation',
    description:
      "Sets the caller's delete flag: the conversation leaves the caller's list, and the other participant can no longer " +
      'write in it; they still see it. A later start about the same listing opens a new conversation. A second leave is 403. ' +
      '`con_id` may come in the query string or in a body.',
    consumes: CONSUMES,
    querystring: Type.Object({ con_id: IdQueryField('The conversation.') }),
    body: optionalBody(Type.Object({ con_id: IdBodyField('The conversation.') }, { additionalProperties: true }), [{ con_id: 1 }]),
    response: { 200: success(Type.Literal(1), 'The conversation is left.'), ...chatRouteErrors(limits, ['con_id']) },
  };
}
