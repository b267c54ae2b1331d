/** Schema of GET my/chat/presence (docs/events.md, "Typing and presence"). */
import { Type } from '@sinclair/typebox';
import { RequestHeaders, SECURITY, success } from '../../common.schema.js';
import { chatPresenceErrors } from '../../errors.schema.js';

const Entry = Type.Object(
  {
    user_id: Type.Integer({ minimum: 1 }),
    online: Type.Boolean({ description: 'An event stream open, or an authenticated request within `ONLINE_WINDOW_S`.' }),
    last_seen: Type.Union([Type.String(), Type.Null()], {
      description:
        "When last seen, rounded down to 5 minutes, as the replies' times (`YYYY-MM-DD HH:MM:SS`, the site's zone); null: never, or hidden.",
    }),
  },
  { additionalProperties: false },
);

export function presenceSchema(limits: { bodyLimit: number }) {
  return {
    security: SECURITY,
    headers: RequestHeaders,
    tags: ['chat'],
    operationId: 'chatPresence',
    summary: 'Whether the users the caller chats with are online',
    description:
      "Souk's own: for each of `user_ids` who shares a conversation with the caller, whether they are online and when they " +
      'were last seen (to 5 minutes). Others are left out, as are a disabled user and one with a block between the two. ' +
      'A user who hid their presence (`PUT my/notifications {"show_presence": false}`) shows offline, never seen.',
    querystring: Type.Object({
      user_ids: Type.Optional(Type.String({ description: 'Comma-separated user ids, at most 100. Required.', examples: ['2,3'] })),
    }),
    response: {
      200: success(
        Type.Array(Entry, { examples: [[{ user_id: 2, online: true, last_seen: '2026-12-02 10:35:00' }]] }),
        'The users the caller may see, in the order asked.',
      ),
      ...chatPresenceErrors(limits),
    },
  };
}
