/** Schema of GET {SERVER_API_PREFIX}/users/{id}/export (docs/server-api.md). */
import { Type } from '@sinclair/typebox';
import { badRequest, notFound } from '../../../errors.js';
import { serverApiErrors } from '../../errors.schema.js';
import { IdParams, ReasonQuery, SERVER_SECURITY, SERVER_TAG, success } from '../common.schema.js';

export function exportUserSchema(limits: { bodyLimit: number }) {
  return {
    security: SERVER_SECURITY,
    tags: [SERVER_TAG],
    operationId: 'serverExportUser',
    summary: "A user's data as one document",
    description:
      'As `souk users export` (docs/safety.md): the profile, favourites, blocks, push devices, every conversation they see with its messages, and the reports they made. Of the other participants, their id and name only. Each export is written to the audit log.',
    params: IdParams,
    querystring: ReasonQuery,
    response: {
      200: success(
        Type.Object(
          {
            format: Type.Literal('souk-user-export'),
            version: Type.Literal(1),
            exported_at: Type.String(),
            user: Type.Object({}, { additionalProperties: true }),
          },
          {
            additionalProperties: true,
            examples: [
              {
                format: 'souk-user-export',
                version: 1,
                exported_at: '2026-12-01T10:00:00.000Z',
                user: { id: 7, login: 'amina', name: 'Amina B.' },
                favourites: [{ listing_id: 101, title: 'City bike' }],
                blocks: { users: [], listings: [] },
                devices: [],
                conversations: [],
                reports: [],
              },
            ],
          },
        ),
        "The user's data.",
      ),
      ...serverApiErrors(limits, { 400: [badRequest('id must be a positive integer.')], 404: [notFound('user', 7)] }),
    },
  };
}
