/** Schemas of POST {SERVER_API_PREFIX}/users/{id}/disable and /enable (docs/server-api.md). */
import { Type } from '@sinclair/typebox';
import { badRequest, conflict, notFound } from '../../../errors.js';
import { serverApiErrors } from '../../errors.schema.js';
import { IdParams, ReasonBody, ReasonQuery, SERVER_SECURITY, SERVER_TAG, success } from '../common.schema.js';

export function standingSchema(limits: { bodyLimit: number }, disabled: boolean) {
  return {
    security: SERVER_SECURITY,
    tags: [SERVER_TAG],
    operationId: disabled ? 'serverDisableUser' : 'serverEnableUser',
    summary: disabled ? 'Disable a user' : 'Enable a user',
    description: disabled
      ? 'As `souk users disable`: sign-in refuses them, their tokens are refused on every server within SETTINGS_REFRESH_MS, and no message can be sent to or from them (at once). Their conversations stay. Asking again answers 200 with `changed` false.'
      : 'As `souk users enable`: they may sign in and chat again (with a new token). An erased user stays disabled: 409. Asking again answers 200 with `changed` false.',
    params: IdParams,
    querystring: ReasonQuery,
    body: ReasonBody,
    response: {
      200: success(
        Type.Object(
          { id: Type.Integer(), disabled: Type.Boolean(), changed: Type.Boolean() },
          { examples: [{ id: 7, disabled, changed: true }] },
        ),
        'The user is in that state now.',
      ),
      ...serverApiErrors(limits, {
        400: [badRequest('id must be a positive integer.'), badRequest('reason must be a string.')],
        404: [notFound('user', 7)],
        ...(disabled ? {} : { 409: [conflict('User 7 was erased: an erased user stays disabled.')] }),
      }),
    },
  };
}
