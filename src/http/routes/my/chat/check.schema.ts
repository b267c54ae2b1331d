/** Schema of GET my/chat/check (docs/routes.md). */
import { Type } from '@sinclair/typebox';
import { IdQueryField } from '../../../body.js';
import { ConversationCheck } from '../../../../present/chat/schemas.js';
import { success } from '../../common.schema.js';
import { conversationCheckErrors } from '../../errors.schema.js';
import { FORMATS, member, messagePaging } from '../chat.schema.js';

export function checkConversationSchema(limits: { bodyLimit: number }) {
  return {
    ...member,
    operationId: 'checkConversation',
    summary: "The caller's open conversation about a listing, if any",
    description:
      "`false` when the caller has no open conversation with the listing's owner about it; else the conversation as " +
      'GET my/chat/conversation gives it. The owner of the listing is refused: they open conversations from GET my/chat. ' +
      FORMATS,
    querystring: Type.Object({ listing_id: IdQueryField('The listing.'), ...messagePaging }),
    response: { 200: success(ConversationCheck, 'The conversation, or false.'), ...conversationCheckErrors(limits) },
  };
}
