/** Schema of POST {SERVER_API_PREFIX}/users/{id}/tokens (docs/server-api.md). */
import { Type } from '@sinclair/typebox';
import { badRequest, conflict, notFound } from '../../../errors.js';
import { serverApiErrors } from '../../errors.schema.js';
import { IdParams, Reason, SERVER_SECURITY, SERVER_TAG, success } from '../common.schema.js';

export function userTokenSchema(limits: { bodyLimit: number; tokenMaxTtlS: number; tokenTtlS: number }) {
  return {
    security: SERVER_SECURITY,
    tags: [SERVER_TAG],
    operationId: 'serverUserToken',
    summary: 'A token for a user, as sign-in gives',
    description:
      "For a marketplace that signs its users in itself: hands out the token `POST login` would, for the app to send as `Authorization: Bearer ...` on the app's routes. `expires_in` is the token's expiry as a Unix time, as sign-in's. A disabled user gets none (409); their token stops working once they are disabled.",
    params: IdParams,
    body: Type.Union(
      [
        Type.Object(
          {
            ttl: Type.Optional(
              Type.Integer({
                minimum: 1,
                maximum: limits.tokenMaxTtlS,
                description: `The token's lifetime in seconds (default ${limits.tokenTtlS}; at most TOKEN_MAX_TTL_S, ${limits.tokenMaxTtlS} here).`,
              }),
            ),
            reason: Reason,
          },
          { additionalProperties: true },
        ),
        Type.Null(),
      ],
      { examples: [{ ttl: 86400 }] },
    ),
    response: {
      200: success(
        Type.Object(
          { jwt_token: Type.String(), expires_in: Type.Integer({ description: "The token's expiry, seconds since 1970 (as sign-in's)." }) },
          { examples: [{ jwt_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...', expires_in: 1796169600 }] },
        ),
        'The token.',
      ),
      ...serverApiErrors(limits, {
        400: [badRequest(`ttl must be an integer from 1 to ${limits.tokenMaxTtlS} (TOKEN_MAX_TTL_S).`)],
        404: [notFound('user', 7)],
        409: [conflict('User 7 is disabled: a token for them would be refused. Enable them first.')],
      }),
    },
  };
}
