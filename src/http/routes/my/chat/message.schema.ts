/** Schemas of answering in a conversation and marking messages read (docs/routes.md). */
import { Type } from '@sinclair/typebox';
import { IdBodyField, IdQueryField, ListingIdField, TempIdField } from '../../../body.js';
import { ChangedFlag, ChatMessage } from '../../../../present/chat/schemas.js';
import { Attachment } from '../../../../present/wire-schemas.js';
import { uploadForm } from './uploads.schema.js';
import type { UploadLimits } from '../../../../domain/files/upload.js';
import { CONSUMES, optionalBody, RequestHeaders, SECURITY, success } from '../../common.schema.js';
import { deleteMessageErrors, editMessageErrors, markReadErrors, sendMessageErrors } from '../../errors.schema.js';

const member = { security: SECURITY, headers: RequestHeaders, tags: ['chat'], consumes: CONSUMES };

export function sendMessageSchema(limits: { bodyLimit: number; textMaxLength: number; maxFiles: number; uploads?: UploadLimits }) {
  return {
    ...member,
    operationId: 'sendMessage',
    summary: 'Answer in a conversation',
    ...uploadForm(
      limits.uploads,
      "Stores the message in a conversation the caller takes part in and has not left, and makes it the conversation's " +
        'last. Refused when the other participant has left. A retry with the same temp_id returns the message stored the ' +
        'first time. `con_id` may also come in the query string.',
    ),
    body: Type.Object(
      {
        con_id: IdBodyField('The conversation (or in the query string).'),
        listing_id: Type.Optional(
          Type.Union([ListingIdField, Type.Null()], { description: "When given, it must be the conversation's listing." }),
        ),
        text: Type.String({ maxLength: limits.textMaxLength, description: 'Message text; may be empty only when files are attached.' }),
        files: Type.Optional(Type.Array(Attachment, { maxItems: limits.maxFiles })),
        temp_id: Type.Optional(TempIdField),
      },
      { additionalProperties: true, examples: [{ con_id: 1, listing_id: 101, text: 'Yes, it is still available.', temp_id: 2 }] },
    ),
    querystring: Type.Object({
      con_id: IdQueryField('The conversation, when the body does not name it.'),
      listing_id: IdQueryField('As `listing_id` in the body, when the body does not name it.'),
    }),
    response: { 200: success(ChatMessage, 'The stored message.'), ...sendMessageErrors(limits) },
  };
}

export function markReadSchema(limits: { bodyLimit: number }) {
  return {
    ...member,
    operationId: 'markRead',
    summary: 'Mark messages read',
    description:
      'Marks the message and every earlier unread message from the other participant read. The parameters may come in ' +
      'the body or in the query string (the apps send them in the query with an empty JSON body). `1` when a message ' +
      "changed, `0` when none did (already read, the caller's own, or not in this conversation).",
    consumes: CONSUMES,
    querystring: Type.Object({ con_id: IdQueryField('The conversation.'), message_id: IdQueryField('The latest message to mark read.') }),
    body: optionalBody(
      Type.Object(
        { con_id: IdBodyField('The conversation.'), message_id: IdBodyField('The latest message to mark read.') },
        { additionalProperties: true },
      ),
      [{ con_id: 1, message_id: 2 }],
    ),
    response: { 200: success(ChangedFlag, 'Whether a message changed.'), ...markReadErrors(limits) },
  };
}

const example = (text: string, meta: { edited_at: string } | null) => ({
  message_id: 2,
  con_id: 1,
  source_id: 7,
  message: text,
  meta,
  attachments: null,
  type: 'text',
  is_read: 0,
  created_at: '2026-12-02 10:31:05',
  temp_id: '',
});
/** A message its sender took back, and one they corrected, as the routes answer them. */
const REMOVED_EXAMPLE = example('', null);
const EDITED_EXAMPLE = example('Yes, it is still available (pick-up only).', { edited_at: '2026-12-02 10:33:40' });

const OWN_IDS = {
  con_id: IdQueryField('The conversation.'),
  message_id: IdQueryField("The caller's message in it."),
};

export function deleteMessageSchema(limits: { bodyLimit: number; textMaxLength: number; maxFiles: number }) {
  return {
    ...member,
    operationId: 'deleteMessage',
    summary: "Take back one's message",
    description:
      'The caller takes back their own message (docs/chat-plus.md): its text and attachments are removed (the files Souk stored ' +
      "for it deleted), the message keeps its place as the plugin's removed message (an empty text), and both participants get " +
      '`message.removed`. Asking again answers 200 with the message as it is. A report made before keeps what it reported. ' +
      'The parameters may come in the query string or the body.',
    querystring: Type.Object(OWN_IDS),
    body: optionalBody(
      Type.Object(
        { con_id: IdBodyField('The conversation.'), message_id: IdBodyField("The caller's message in it.") },
        { additionalProperties: true },
      ),
      [{ con_id: 1, message_id: 2 }],
    ),
    response: { 200: success({ ...ChatMessage, examples: [REMOVED_EXAMPLE] }, 'The message, emptied.'), ...deleteMessageErrors(limits) },
  };
}

export function editMessageSchema(limits: { bodyLimit: number; textMaxLength: number; maxFiles: number; windowS: number }) {
  return {
    ...member,
    operationId: 'editMessage',
    summary: "Correct one's message",
    description:
      `The caller corrects the text of their own message (docs/chat-plus.md) within MESSAGE_EDIT_WINDOW_S (now ${limits.windowS} s) ` +
      'of sending it and, unless MESSAGE_EDIT_AFTER_READ, while the other participant has not read it. The text is screened ' +
      "as a new message's is. The message gets `meta.edited_at`; both participants get `message.update`; the previous text " +
      'is kept (the export shows it). Offers and removed messages cannot be corrected.',
    querystring: Type.Object(OWN_IDS),
    body: Type.Object(
      {
        con_id: IdBodyField('The conversation (or in the query string).'),
        message_id: IdBodyField("The caller's message in it (or in the query string)."),
        text: Type.String({ maxLength: limits.textMaxLength, description: 'The new text; not empty.' }),
      },
      { additionalProperties: true, examples: [{ con_id: 1, message_id: 2, text: 'Yes, it is still available (pick-up only).' }] },
    ),
    response: { 200: success({ ...ChatMessage, examples: [EDITED_EXAMPLE] }, 'The message, corrected.'), ...editMessageErrors(limits) },
  };
}
