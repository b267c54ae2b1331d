/** Schema of POST my/chat/report (docs/safety.md). */
import { Type } from '@sinclair/typebox';
import { IdBodyField, IdQueryField } from '../../../body.js';
import { CONSUMES, optionalBody, RequestHeaders, SECURITY, success } from '../../common.schema.js';
import { reportConversationErrors } from '../../errors.schema.js';

export function reportConversationSchema(limits: { bodyLimit: number; textMaxLength: number }) {
  return {
    security: SECURITY,
    headers: RequestHeaders,
    tags: ['chat'],
    consumes: CONSUMES,
    operationId: 'reportConversation',
    summary: 'Report a conversation or one of its messages',
    description:
      "Souk's own: a participant reports the conversation (its latest 50 messages are kept with the report) or one " +
      'message in it (kept alone). The report keeps the messages as they were, whatever later happens to them, and is ' +
      'sent as a `report.created` webhook; each message is kept once, however many reports name it. One open report per ' +
      'reporter and conversation: a repeat answers the same and stores nothing. At most `REPORTS_PER_HOUR` reports an ' +
      'hour. The parameters may come in the query string.',
    querystring: Type.Object({
      con_id: IdQueryField('The conversation, when the body does not name it.'),
      message_id: IdQueryField('As `message_id` in the body.'),
      reason: Type.Optional(Type.String({ description: 'As `reason` in the body.' })),
    }),
    body: optionalBody(
      Type.Object(
        {
          con_id: IdBodyField('The conversation.'),
          message_id: IdBodyField('One message of the conversation; absent reports the conversation.'),
          reason: Type.Optional(Type.String({ maxLength: limits.textMaxLength, description: 'Why it is reported; required.' })),
        },
        { additionalProperties: true },
      ),
      [{ con_id: 1, message_id: 7, reason: 'He asks me to pay outside the site.' }],
    ),
    response: {
      200: success(
        Type.Object({ reported: Type.Literal(true) }, { additionalProperties: false, examples: [{ reported: true }] }),
        'The report is stored.',
      ),
      ...reportConversationErrors(limits),
    },
  };
}
