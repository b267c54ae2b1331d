/** Schema of POST pusher/auth (docs/pusher.md, "Private channels"). */
import { Type } from '@sinclair/typebox';
import { CONSUMES, RequestHeaders, SECURITY, success } from '../common.schema.js';
import { pusherAuthErrors } from '../errors.schema.js';

export function pusherAuthSchema(limits: { bodyLimit: number }) {
  return {
    operationId: 'authorizePusherChannel',
    summary: "Authorize the caller's private Pusher channel",
    description:
      "pusher-js's channel authorization (`channelAuthorization.endpoint`) for `PUSHER_CHANNELS=private`: the caller " +
      'may subscribe to their own `private-chat-user-{id}`, where Souk publishes their chat events, and to no other ' +
      'channel (403). The answer is `{"auth": "KEY:SIGNATURE"}`, the HMAC-SHA256 of `socket_id:channel_name` with the ' +
      "app's secret. The parameters may come in the query string or the body. Not offered with public channels or " +
      'without a Pusher app (404).',
    tags: ['chat'],
    security: SECURITY,
    headers: RequestHeaders,
    consumes: CONSUMES,
    querystring: Type.Object({
      socket_id: Type.Optional(Type.String({ description: 'As `socket_id` in the body, when the body does not name it.' })),
      channel_name: Type.Optional(Type.String({ description: 'As `channel_name` in the body, when the body does not name it.' })),
    }),
    body: Type.Object(
      {
        socket_id: Type.Optional(Type.String({ description: "The connection's socket id, as pusher-js sends it. Required." })),
        channel_name: Type.Optional(Type.String({ description: 'The channel: `private-chat-user-{caller id}`. Required.' })),
      },
      { additionalProperties: true, examples: [{ socket_id: '1234.1234', channel_name: 'private-chat-user-7' }] },
    ),
    response: {
      200: success(
        Type.Object(
          { auth: Type.String({ description: "The app's key, a colon, and the signature." }) },
          // A real reply (test/ops/openapi.test.ts holds its shape to Souk's).
          {
            additionalProperties: false,
            examples: [{ auth: '278d425bdf160c739803:58df8b0c36d6982b82c3ecf6b4662e34fe8c25bba48f5369f135bf843651c3a4' }],
          },
        ),
        'The caller may subscribe to the channel.',
      ),
      ...pusherAuthErrors(limits),
    },
  };
}
