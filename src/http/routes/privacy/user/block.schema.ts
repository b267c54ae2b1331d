/** Schemas of privacy/user/block (docs/safety.md). */
import { Type } from '@sinclair/typebox';
import { IdBodyField, IdQueryField } from '../../../body.js';
import { CONSUMES, optionalBody, RequestHeaders, SECURITY, success } from '../../common.schema.js';
import { blockRouteErrors } from '../../errors.schema.js';

const member = { security: SECURITY, headers: RequestHeaders, tags: ['privacy'] };

export const BlockedUsers = Type.Array(
  Type.Object(
    {
      id: Type.Integer(),
      name: Type.String({ description: "The user's display name (never their login)." }),
      email: Type.String(),
    },
    { additionalProperties: false },
  ),
  {
    description: 'The users the caller blocked, in the order blocked, as the plugin lists them.',
    examples: [[{ id: 3, name: 'Sara M.', email: '' }]],
  },
);

const userId = {
  querystring: Type.Object({ user_id: IdQueryField('The user (or in the body).') }),
  body: optionalBody(Type.Object({ user_id: IdBodyField('The user.') }, { additionalProperties: true }), [{ user_id: 7 }]),
};

export function blockedUsersSchema(limits: { bodyLimit: number }) {
  return {
    ...member,
    operationId: 'listBlockedUsers',
    summary: 'The users the caller blocked',
    description:
      'The users the caller blocked, oldest block first: `[{id, name, email}]`, `[]` when none. `email` is always empty: any user may block any id, so an address there would leak.',
    response: { 200: success(BlockedUsers, 'The blocked users.'), ...blockRouteErrors(limits, 'user', 'GET') },
  };
}

export function blockUserSchema(limits: { bodyLimit: number }) {
  return {
    ...member,
    consumes: CONSUMES,
    operationId: 'blockUser',
    summary: 'Block a user',
    description:
      "Adds the user to the caller's blocked users (once, however often asked) and replies with the list. From then on " +
      'neither can start a conversation with the other nor write in one between them (403 "You cannot send messages to ' +
      'this user."), the caller\'s chat list leaves out conversations with them and their favourites list leaves out ' +
      'their listings, and nothing they do reaches the caller. Blocking yourself: 400; staff (administrators) are answered as ' +
      'unknown users (404). At most `BLOCK_CHANGES_PER_HOUR` changes an hour. `user_id` may come in the query string.',
    ...userId,
    response: { 200: success(BlockedUsers, 'The blocked users after adding.'), ...blockRouteErrors(limits, 'user', 'POST') },
  };
}

export function unblockUserSchema(limits: { bodyLimit: number }) {
  return {
    ...member,
    consumes: CONSUMES,
    operationId: 'unblockUser',
    summary: 'Unblock a user',
    description:
      "Removes the user from the caller's blocked users and replies with the list; the conversations with them come back " +
      'to the chat list. `user_id` in the query string, as the apps send it (or in the body).',
    ...userId,
    response: { 200: success(BlockedUsers, 'The blocked users after removing.'), ...blockRouteErrors(limits, 'user', 'DELETE') },
  };
}
