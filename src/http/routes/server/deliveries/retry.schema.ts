/** Schema of POST {SERVER_API_PREFIX}/deliveries/{id}/retry (docs/server-api.md). */
import { Type } from '@sinclair/typebox';
import { badRequest, conflict, notFound } from '../../../errors.js';
import { serverApiErrors } from '../../errors.schema.js';
import { notFailedMessage, SUPERSEDED_MESSAGE } from '../common.js';
import { ReasonBody, ReasonQuery, SERVER_SECURITY, SERVER_TAG, success } from '../common.schema.js';
import { DELIVERY_EXAMPLE, DELIVERY_ID_MESSAGE, ServerDelivery } from '../deliveries.schema.js';

export function retryDeliverySchema(limits: { bodyLimit: number }) {
  return {
    security: SERVER_SECURITY,
    tags: [SERVER_TAG],
    operationId: 'serverRetryDelivery',
    summary: 'Send a failed delivery again',
    description:
      'As `souk webhooks retry` and `souk mail retry`, for one delivery: a failed one goes back to pending, due now, with a fresh count of attempts (a webhook also a fresh retry window). Written to the audit log in the same transaction. A delivery that is not failed: 409.',
    params: Type.Object({
      id: Type.String({ pattern: '^(webhook|mail|push|pusher):[1-9][0-9]{0,15}$', description: 'The delivery, as listed: `webhook:12`.' }),
    }),
    querystring: ReasonQuery,
    body: ReasonBody,
    response: {
      200: success(
        Type.Object(ServerDelivery.properties, { examples: [{ ...DELIVERY_EXAMPLE, status: 'pending', attempts: 0 }] }),
        'The delivery, pending again.',
      ),
      ...serverApiErrors(limits, {
        400: [badRequest(DELIVERY_ID_MESSAGE)],
        404: [notFound('delivery', 'webhook:31')],
        409: [conflict(notFailedMessage('webhook:31', 'delivered')), conflict(SUPERSEDED_MESSAGE)],
      }),
    },
  };
}
