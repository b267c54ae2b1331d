/** Schemas of GET and PUT my/notifications (docs/mail.md). */
import { Type } from '@sinclair/typebox';
import { CONSUMES, RequestHeaders, SECURITY, success } from '../common.schema.js';
import { memberRouteErrors, notificationsErrors } from '../errors.schema.js';

const Notifications = Type.Object(
  {
    email: Type.Boolean({ description: 'Whether a message waiting for the caller is mailed to them (docs/mail.md).' }),
    show_presence: Type.Boolean({
      description: 'Whether the users the caller chats with see them online and when last seen (`GET my/chat/presence`).',
    }),
  },
  { additionalProperties: false, examples: [{ email: true, show_presence: true }] },
);

export function notificationsSchema(limits: { bodyLimit: number }) {
  return {
    operationId: 'notificationSettings',
    summary: "The caller's notification choices",
    description:
      'Whether a message the caller has not read is mailed to them when they are not online (`email`, on unless they turned it off here or through the link of a mail).',
    tags: ['notifications'],
    security: SECURITY,
    headers: RequestHeaders,
    response: { 200: success(Notifications, "The caller's choices."), ...memberRouteErrors(limits) },
  };
}

export function setNotificationsSchema(limits: { bodyLimit: number }) {
  return {
    operationId: 'setNotificationSettings',
    summary: "Change the caller's notification choices",
    description:
      '`{"email": false}` stops the mails about waiting messages; `{"email": true}` starts them again. `{"show_presence": false}` ' +
      'shows the caller offline, never seen, to everyone (`GET my/chat/presence`). Either may come alone. Form bodies may say `true`/`false`.',
    tags: ['notifications'],
    security: SECURITY,
    headers: RequestHeaders,
    consumes: CONSUMES,
    body: Type.Object(
      {
        email: Type.Optional(Type.Unknown({ description: '`true` or `false` (a form body: `true`, `false`, `1`, `0`).' })),
        show_presence: Type.Optional(Type.Unknown({ description: '`true` or `false`, as `email`.' })),
      },
      { additionalProperties: true, examples: [{ email: false }, { show_presence: false }] },
    ),
    response: { 200: success(Notifications, "The caller's choices, as stored."), ...notificationsErrors(limits) },
  };
}
