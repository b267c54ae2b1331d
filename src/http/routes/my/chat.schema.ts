/** Schema of GET my/chat, and what the schemas of the chat's reads share (docs/routes.md). */
import { Type } from '@sinclair/typebox';
import { MAX_PER_PAGE, PageField } from '../../body.js';
import { ConversationList } from '../../../present/chat/schemas.js';
import { RequestHeaders, SECURITY, success } from '../common.schema.js';
import { pagedListErrors } from '../errors.schema.js';

/** Page sizes when the request names none (docs/routes.md). */
export const CONVERSATIONS_PER_PAGE = 20;
export const MESSAGES_PER_PAGE = 50;
/** The classic generation's conversation list and message list: at most this many, no paging. */
export const CLASSIC_CONVERSATIONS = 50;
export const CLASSIC_MESSAGES_MAX = 500;

export const FORMATS = 'The reply takes the shape `CHAT_REPLY_FORMAT` names: current (4.x) or classic (2.x).';

export const messagePaging = {
  page: PageField('Current: the page of messages, from 1 (default 1).'),
  per_page: PageField(`Current: messages per page, 1 to ${MAX_PER_PAGE} (default ${MESSAGES_PER_PAGE}).`),
  limit: PageField(`Classic: how many of the latest messages, 1 to ${CLASSIC_MESSAGES_MAX} (default ${MESSAGES_PER_PAGE}).`),
  after_id: PageField('Only messages with a larger message_id (default 0: all); a cheap poll.'),
};

export const member = { security: SECURITY, headers: RequestHeaders, tags: ['chat'] };

export function listConversationsSchema(limits: { bodyLimit: number }) {
  return {
    ...member,
    operationId: 'listConversations',
    summary: "The caller's conversations, latest message first",
    description:
      'Conversations the caller takes part in and has not left. Current: a page at a time, `listing` null once the ' +
      `listing is removed. Classic: a bare array of at most ${CLASSIC_CONVERSATIONS}, without those whose listing was removed. ${FORMATS}`,
    querystring: Type.Object({
      page: PageField('Current: the page, from 1 (default 1).'),
      per_page: PageField(`Current: conversations per page, 1 to ${MAX_PER_PAGE} (default ${CONVERSATIONS_PER_PAGE}).`),
    }),
    response: { 200: success(ConversationList, 'A page of conversations.'), ...pagedListErrors(limits) },
  };
}
