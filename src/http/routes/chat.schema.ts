/** Schemas of the chat's reads and of leaving a conversation (docs/routes.md). */
import { Type } from '@sinclair/typebox';
import { IdBodyField, IdQueryField, MAX_PER_PAGE, PageField } from '../body.js';
import { ConversationCheck, ConversationList, ConversationRead } from '../../present/chat-schemas.js';
import { CONSUMES, optionalBody, RequestHeaders, SECURITY, success } from './common.schema.js';
import { chatRouteErrors, conversationCheckErrors, conversationReadErrors, pagedListErrors } from './errors.schema.js';

/** Page sizes when the request names none (docs/routes.md). */
export const CONVERSATIONS_PER_PAGE = 20;
export const MESSAGES_PER_PAGE = 50;
/** The classic generation's conversation list and message list: at most this many, no paging. */
export const CLASSIC_CONVERSATIONS = 50;
export const CLASSIC_MESSAGES_MAX = 500;

const FORMATS = 'The reply takes the shape `CHAT_REPLY_FORMAT` names: current (4.x) or classic (2.x).';

const messagePaging = {
  page: PageField('Current: the page of messages, from 1 (default 1).'),
  per_page: PageField(`Current: messages per page, 1 to ${MAX_PER_PAGE} (default ${MESSAGES_PER_PAGE}).`),
  limit: PageField(`Classic: how many of the latest messages, 1 to ${CLASSIC_MESSAGES_MAX} (default ${MESSAGES_PER_PAGE}).`),
  after_id: PageField('Only messages with a larger message_id (default 0: all); a cheap poll.'),
};

const member = { security: SECURITY, headers: RequestHeaders, tags: ['chat'] };

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
