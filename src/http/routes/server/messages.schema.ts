/** Schema of DELETE {SERVER_API_PREFIX}/messages/{id} (docs/server-api.md). */
import { Type } from '@sinclair/typebox';
import { badRequest, notFound } from '../../errors.js';
import { serverApiErrors } from '../errors.schema.js';
import { IdParams, ReasonQuery, SERVER_SECURITY, SERVER_TAG, success } from './common.schema.js';

export function deleteMessageSchema(limits: { bodyLimit: number }) {
  return {
    security: SERVER_SECURITY,
    tags: [SERVER_TAG],
    operationId: 'serverDeleteMessage',
    summary: 'Remove a chat message (moderation)',
    description:
      "As `souk messages delete`: the message keeps its place in the conversation, its text and attachments (and their stored files) go, and both participants' open event streams get a `message.update`. Asking again answers 200.",
    params: IdParams,
    querystring: ReasonQuery,
    response: {
      200: success(
        Type.Object(
          { id: Type.Integer(), con_id: Type.Integer(), removed: Type.Literal(true) },
          { examples: [{ id: 41, con_id: 3, removed: true }] },
        ),
        'The message is removed.',
      ),
      ...serverApiErrors(limits, { 400: [badRequest('id must be a positive integer.')], 404: [notFound('message', 41)] }),
    },
  };
}
