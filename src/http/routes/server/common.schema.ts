/** Schema parts the server API's routes share (docs/server-api.md). */
import { Type } from '@sinclair/typebox';
import { success } from '../common.schema.js';

/** The server key, as the OpenAPI security scheme `serverKey` (plugins/openapi.ts). */
export const SERVER_SECURITY = [{ serverKey: [] }];

export const SERVER_TAG = 'server';

export const IdParams = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,15}$', description: 'The id, a positive integer.' }) });

export const Reason = Type.Optional(
  Type.String({ maxLength: 1000, description: 'Why, for the audit log (at most 1000 characters). A DELETE takes it in the query string.' }),
);

export const ReasonQuery = Type.Object({ reason: Reason });

/** A body that may carry only a reason. */
export const ReasonBody = Type.Union([Type.Object({ reason: Reason }, { additionalProperties: true }), Type.Null()], {
  examples: [{ reason: 'Spam reported three times (reports 12, 14, 15).' }],
});

export { success };
