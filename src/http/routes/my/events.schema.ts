import { Type } from '@sinclair/typebox';
import { RequestHeaders, SECURITY, success } from '../common.schema.js';
import { eventStreamErrors, memberRouteErrors } from '../errors.schema.js';

const EVENTS_DESCRIPTION =
  "The caller's events as Server-Sent Events (`text/event-stream`), named as the plugin's Pusher events: " +
  "`conversation.new` `{conversation}` (the conversation start's reply, with `newMessage`), `message.new` `{message}` " +
  '(the message object), `conversation.unread` `{user_id, count, conversation_id}`, `message.update` `{message}` (a read ' +
  "receipt: that message and every earlier one of its sender are read), and Souk's `conversation.left` " +
  "`{conversation_id, user_id}`. Each event has an `id`, the caller's own sequence number. A client that reconnects with " +
  '`Last-Event-ID` (the header, or `last_event_id` in the query) gets exactly the events it missed, from the event log; ' +
  'when those are older than `EVENTS_RETENTION_S` it gets a `reset` event instead (reload, then carry on). A comment ' +
  'line every `EVENTS_HEARTBEAT_MS` keeps proxies from closing the stream. The stream ends when its token is revoked ' +
  'or expires, and a client that lets more than `EVENTS_BUFFER_BYTES` wait is cut off (reconnect with `Last-Event-ID`). ' +
  "A browser's `EventSource`, which cannot send headers, passes `ticket` (from `POST my/events/ticket`) instead of " +
  'the `Authorization` and `X-API-KEY` headers.';

export function eventStreamSchema(limits: { bodyLimit: number }) {
  return {
    operationId: 'streamEvents',
    summary: "The caller's events as they happen (Server-Sent Events)",
    description: EVENTS_DESCRIPTION,
    tags: ['events'],
    security: [...SECURITY, { eventTicket: [] }],
    headers: Type.Object({
      ...RequestHeaders.properties,
      'last-event-id': Type.Optional(Type.String({ description: 'The id of the last event the client received.' })),
    }),
    querystring: Type.Object({
      ticket: Type.Optional(Type.String({ description: 'A ticket from `POST my/events/ticket`, in place of the headers; used once.' })),
      last_event_id: Type.Optional(Type.String({ description: 'As the `Last-Event-ID` header, for a new `EventSource`.' })),
    }),
    produces: ['text/event-stream'],
    response: {
      200: success(
        Type.String({
          description: 'An endless `text/event-stream`.',
          // A real event (test/ops/openapi.test.ts holds its shape to Souk's).
          examples: [
            'id: 4\nevent: message.new\ndata: {"message":{"message_id":2,"con_id":1,"source_id":1,"message":"Is it still available?",' +
              '"meta":null,"attachments":null,"type":"text","is_read":0,"created_at":"2026-11-26 21:57:51","temp_id":"7"}}\n\n',
          ],
        }),
        "The caller's events.",
      ),
      ...eventStreamErrors(limits),
    },
  };
}

export function eventTicketSchema(limits: { bodyLimit: number }) {
  return {
    operationId: 'eventStreamTicket',
    summary: 'A single-use ticket that opens the event stream from a browser',
    description:
      "For `new EventSource('{api_base}/my/events?ticket=...')`, which cannot send headers: the ticket stands for this " +
      "request's token, once, within `EVENTS_TICKET_TTL_S` (30 s by default), on any instance. The stream it opens ends " +
      "when that token is revoked or expires. EventSource's own reconnection reuses the spent ticket and fails: on `error`, " +
      'ask a new ticket and open a new EventSource with `last_event_id`.',
    tags: ['events'],
    security: SECURITY,
    headers: RequestHeaders,
    response: {
      200: success(
        Type.Object(
          {
            ticket: Type.String({ description: 'The ticket: pass it as `ticket` to `GET my/events`.' }),
            expires_in: Type.Integer({ description: 'Seconds it stays valid.' }),
          },
          // A real reply (test/ops/openapi.test.ts holds its shape to Souk's).
          { examples: [{ ticket: 'rMA2U4GOnxEs3rW2j_y_NsPJvqk_ACwlFMzFIWM8kn0', expires_in: 29 }] },
        ),
        'The ticket.',
      ),
      ...memberRouteErrors(limits),
    },
  };
}
