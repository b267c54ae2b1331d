/** Schema of POST logout (docs/routes.md). */
import { SignOutReply } from '../../present/wire-schemas.js';
import { RequestHeaders, SECURITY, success } from './common.schema.js';
import { memberRouteErrors } from './errors.schema.js';

export function signOutSchema(limits: { bodyLimit: number }) {
  return {
    operationId: 'signOut',
    summary: 'Sign out: the token used stops working everywhere',
    description:
      'Revokes the bearer token sent with this request until it would have expired: every instance refuses it within ' +
      '`SETTINGS_REFRESH_MS`, this one at once. Other tokens of the user stay valid.',
    tags: ['account'],
    security: SECURITY,
    headers: RequestHeaders,
    response: { 200: success(SignOutReply, 'The user whose token was revoked.'), ...memberRouteErrors(limits) },
  };
}
