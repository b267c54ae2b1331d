/** Schema of POST my/chat/typing (docs/events.md, "Typing and presence"). */
import { Type } from '@sinclair/typebox';
import { IdBodyField, IdQueryField } from '../../../body.js';
import { CONSUMES, optionalBody, RequestHeaders, SECURITY, success } from '../../common.schema.js';
import { chatRouteErrors } from '../../errors.schema.js';

export function typingSchema(limits: { bodyLimit: number }) {
  return {
    security: SECURITY,
    headers: RequestHeaders,
    tags: ['chat'],
    consumes: CONSUMES,
    operationId: 'chatTyping',
    summary: 'Say that the caller is typing in a conversation',
    description:
      "Souk's own: the other participant's event streams (`GET my/events`) get `conversation.typing` " +
      '`{"conversation_id", "user_id"}`, an event without an `id` that is never stored nor replayed. At most one every ' +
      '3 s per conversation and sender: more is answered 204 too and sends nothing. Nothing goes across a block, to a ' +
      'disabled user, or to a participant who left. The parameters may come in the query string.',
    querystring: Type.Object({ con_id: IdQueryField('The conversation, when the body does not name it.') }),
    body: optionalBody(Type.Object({ con_id: IdBodyField('The conversation.') }, { additionalProperties: true }), [{ con_id: 12 }]),
    response: {
      204: success(Type.Null(), 'Taken: the other participant is told, unless the limit, a block or their account says not.'),
      ...chatRouteErrors(limits, ['con_id']),
    },
  };
}
