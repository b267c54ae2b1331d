/** Schema of GET {SERVER_API_PREFIX}/deliveries (docs/server-api.md). */
import { Type } from '@sinclair/typebox';
import { DELIVERY_STATUSES, type DeliveryKind } from '../../../domain/operator/deliveries.js';
import { badRequest } from '../../errors.js';
import { serverApiErrors } from '../errors.schema.js';
import { SERVER_SECURITY, SERVER_TAG, success } from './common.schema.js';

export const KIND_MESSAGE = 'kind must be webhook, mail, push or pusher.';
export const statusMessage = (kind: DeliveryKind) => `status must be one of ${DELIVERY_STATUSES[kind].join(', ')} for ${kind} deliveries.`;
export const DELIVERY_ID_MESSAGE =
  'id must be a delivery id such as webhook:12 (webhook, mail, push or pusher, a colon, a positive integer).';

const Time = Type.String({ format: 'date-time' });
const OrNull = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(t: T) => Type.Union([t, Type.Null()]);

export const ServerDelivery = Type.Object({
  id: Type.String({ description: 'The outbox and its row: `webhook:12`, `mail:7`, `push:3`, `pusher:9`.' }),
  kind: Type.Union([Type.Literal('webhook'), Type.Literal('mail'), Type.Literal('push'), Type.Literal('pusher')]),
  status: Type.String({
    description:
      'webhook: pending, delivered, failed; mail and push: pending, sent, skipped, failed; pusher: pending, sent, failed. Failed: its retries ran out.',
  }),
  user_id: Type.Integer({ description: 'Whose event (webhook, pusher), or who is mailed or pushed (mail, push).' }),
  attempts: Type.Integer(),
  created_at: Time,
  next_attempt_at: Time,
  sent_at: OrNull(Time),
  last_error: OrNull(Type.String()),
  details: Type.Union(
    [
      Type.Object({
        type: Type.String(),
        url: Type.String({ description: 'The receiver; a password in it is masked.' }),
        webhook_id: Type.String(),
      }),
      Type.Object({ con_id: Type.Integer(), first_message_id: Type.Integer(), last_message_id: Type.Integer() }),
      Type.Object({ message_id: Type.Integer() }),
      Type.Object({ event: Type.String() }),
    ],
    {
      description:
        "The outbox's own fields (never the payload): a webhook's event type, receiver and webhook-id; a mail's conversation and messages; a push's message; a Pusher event's name.",
    },
  ),
});

export const DELIVERY_EXAMPLE = {
  id: 'webhook:31',
  kind: 'webhook',
  status: 'failed',
  user_id: 8,
  attempts: 9,
  created_at: '2026-11-30T18:05:00.000Z',
  next_attempt_at: '2026-12-01T18:05:00.000Z',
  sent_at: null,
  last_error: 'HTTP 503',
  details: { type: 'message.new', url: 'https://hooks.example.com/souk', webhook_id: 'msg_2b7Kx0aTqPjV' },
};

export function listDeliveriesSchema(limits: { bodyLimit: number }) {
  return {
    security: SERVER_SECURITY,
    tags: [SERVER_TAG],
    operationId: 'serverListDeliveries',
    summary: "An outbox's deliveries, newest first",
    description:
      'As `souk webhooks list` and `souk mail list`: the deliveries of one outbox (`kind`: the webhooks, the mails, the pushes or the Pusher events), newest first, a page at a time: pass `next_cursor` back as `cursor` for the next page (null: no more). `status=failed` lists those whose retries ran out, which `POST deliveries/{id}/retry` sends again.',
    querystring: Type.Object({
      kind: Type.Union([Type.Literal('webhook'), Type.Literal('mail'), Type.Literal('push'), Type.Literal('pusher')], {
        description: 'Which outbox (required).',
      }),
      status: Type.Optional(Type.String({ description: 'Only deliveries in this status (see `status` below for each kind).' })),
      limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: 'At most this many (1 to 100; default 20).' })),
      cursor: Type.Optional(Type.String({ description: 'The `next_cursor` of the page before.' })),
    }),
    response: {
      200: success(
        Type.Object(
          { data: Type.Array(ServerDelivery), next_cursor: Type.Union([Type.String(), Type.Null()]) },
          { examples: [{ data: [DELIVERY_EXAMPLE], next_cursor: null }] },
        ),
        'A page of deliveries.',
      ),
      ...serverApiErrors(limits, {
        400: [
          badRequest(KIND_MESSAGE),
          badRequest(statusMessage('webhook')),
          badRequest('limit must be between 1 and 100.'),
          badRequest('cursor must be the next_cursor of an earlier page.'),
        ],
      }),
    },
  };
}
