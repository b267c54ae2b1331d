/** Request parts both operations share: credentials (as OpenAPI security) and the request id header. */
import { Type, type TObject } from '@sinclair/typebox';
import { RequestIdReplyHeader } from './errors.schema.js';

/**
 * Names of the security schemes in the OpenAPI document (plugins/openapi.ts defines them). Both
 * operations need both: one object means "all of these together".
 */
export const SECURITY = [{ bearerAuth: [], apiKey: [] }];

/**
 * Authorization and X-API-KEY are documented as security schemes, the OpenAPI way (a header parameter
 * named Authorization is ignored by the specification). Both are checked by the auth hook before
 * validation, so they are not part of this schema, whose properties are all optional: it must never
 * turn a request into a 400 that the interface would not give.
 */
export const RequestHeaders = Type.Object({
  'x-request-id': Type.Optional(
    Type.String({
      description:
        'Optional id for tracing this request (1-128 characters of A-Z a-z 0-9 . _ : -). It is echoed in the ' +
        'X-Request-Id reply header and logged; another value is replaced by a generated id.',
    }),
  ),
});

/** Both body encodings the interface accepts (D2); JSON is the documented one. */
export const CONSUMES = ['application/json', 'application/x-www-form-urlencoded'];

/**
 * The body of a route whose parameters may come in the query string instead (N2): the route goes without one.
 * Fastify validates an absent body as null, hence the null; the OpenAPI document shows it as a body that is not
 * required, without the null (plugins/openapi.ts).
 */
export function optionalBody<T extends TObject>(schema: T, examples: unknown[]) {
  return Type.Union([schema, Type.Null()], { examples });
}

/** A success response: its schema, a description, and the request id reply header. */
export function success<T extends object>(schema: T, description: string) {
  return { ...schema, 'x-response-description': description, headers: { 'x-request-id': RequestIdReplyHeader } };
}
