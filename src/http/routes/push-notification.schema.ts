/** Schemas of push-notification/register and push-notification/add-device (the plugin's routes). */
import { Type } from '@sinclair/typebox';
import { CONSUMES, RequestHeaders, SECURITY, success } from './common.schema.js';
import { registerDeviceErrors } from './errors.schema.js';

const DESCRIPTION =
  "Stores the device's Expo push token (or, where `FCM_SERVICE_ACCOUNT_JSON` is set, its Firebase Cloud Messaging " +
  'registration token) for the caller: a new message to the caller is then pushed to it through Expo (or FCM HTTP v1), unless the caller has that conversation in view (an open event stream, or `GET my/chat/conversation` for it ' +
  'within 15 s). A token belongs to one user at a time, bound to the session (sign-in token) that registered it: it ' +
  'moves to another user only once that session has ended (`POST logout` unbinds its devices; or its token expired), ' +
  'else 409 `PUSH_TOKEN_TAKEN`. A user keeps their ' +
  '`PUSH_DEVICES_PER_USER` most recently registered tokens; one more drops the oldest. Registering a token again ' +
  'changes nothing but its `events` and its time. The parameters may come in the query string or the body (form ' +
  'bodies: `events[]=a&events[]=b`, or one comma-separated `events`). Not offered with `PUSH_NOTIFICATIONS=false` (404).';

export function registerDeviceSchema(limits: { bodyLimit: number }, operationId: string, summary: string) {
  return {
    operationId,
    summary,
    description: DESCRIPTION,
    tags: ['push'],
    security: SECURITY,
    headers: RequestHeaders,
    consumes: CONSUMES,
    querystring: Type.Object({
      push_token: Type.Optional(Type.String({ description: 'As `push_token` in the body, when the body does not name it.' })),
      events: Type.Optional(
        Type.Union([Type.String(), Type.Array(Type.String())], { description: 'As `events` in the body, when the body does not name it.' }),
      ),
    }),
    body: Type.Object(
      {
        push_token: Type.Optional(
          Type.String({
            description:
              'The Expo push token (`ExponentPushToken[...]` or `ExpoPushToken[...]`), or with FCM configured an FCM registration token (`<instance id>:<token>`, at most 255 characters). Required.',
          }),
        ),
        events: Type.Optional(
          Type.Union([Type.Array(Type.String()), Type.String(), Type.Null()], {
            description: "The plugin's event list (at most 20 names of at most 64 characters), kept and echoed; Souk pushes new messages.",
          }),
        ),
      },
      { additionalProperties: true, examples: [{ push_token: 'ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]', events: ['chat'] }] },
    ),
    response: {
      200: success(
        Type.Object(
          {
            push_token: Type.String({ description: 'The token stored.' }),
            events: Type.Array(Type.String(), { description: 'The event list stored.' }),
          },
          // A real reply (test/ops/openapi.test.ts holds its shape to Souk's).
          { additionalProperties: false, examples: [{ push_token: 'ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]', events: ['chat'] }] },
        ),
        'The device is registered for the caller.',
      ),
      ...registerDeviceErrors(limits),
    },
  };
}
