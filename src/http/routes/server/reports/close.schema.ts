/** Schema of POST {SERVER_API_PREFIX}/reports/{id}/close (docs/server-api.md). */
import { Type } from '@sinclair/typebox';
import { badRequest, notFound } from '../../../errors.js';
import { serverApiErrors } from '../../errors.schema.js';
import { IdParams, ReasonBody, ReasonQuery, SERVER_SECURITY, SERVER_TAG, success } from '../common.schema.js';

export function closeReportSchema(limits: { bodyLimit: number }) {
  return {
    security: SERVER_SECURITY,
    tags: [SERVER_TAG],
    operationId: 'serverCloseReport',
    summary: 'Close a report once dealt with',
    description: 'As `souk reports close`. Closing it again answers 200 with `changed` false.',
    params: IdParams,
    querystring: ReasonQuery,
    body: ReasonBody,
    response: {
      200: success(
        Type.Object(
          { id: Type.Integer(), status: Type.Literal('closed'), changed: Type.Boolean() },
          { examples: [{ id: 12, status: 'closed', changed: true }] },
        ),
        'The report is closed.',
      ),
      ...serverApiErrors(limits, { 400: [badRequest('id must be a positive integer.')], 404: [notFound('report', 12)] }),
    },
  };
}
