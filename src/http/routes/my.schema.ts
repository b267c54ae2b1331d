/** Schema of GET my (docs/routes.md). */
import { UserObject } from '../../present/wire-schemas.js';
import { RequestHeaders, SECURITY, success } from './common.schema.js';
import { memberRouteErrors } from './errors.schema.js';

export function myAccountSchema(limits: { bodyLimit: number }) {
  return {
    operationId: 'myAccount',
    summary: "The caller's user object",
    tags: ['account'],
    security: SECURITY,
    headers: RequestHeaders,
    response: { 200: success(UserObject, 'The signed-in user.'), ...memberRouteErrors(limits) },
  };
}
