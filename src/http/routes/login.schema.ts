/** Schema of POST login (docs/routes.md). */
import { Type } from '@sinclair/typebox';
import { SignInReply } from '../../present/wire-schemas.js';
import { CONSUMES, RequestHeaders, success } from './common.schema.js';
import { signInErrors } from './errors.schema.js';

/** A sign-in field: a string; another type, null or "" counts as missing (N2). */
const Credential = (description: string, example: string) => Type.Optional(Type.Unsafe<unknown>({ description, examples: [example] }));

export function signInSchema(limits: { bodyLimit: number }) {
  return {
    operationId: 'signIn',
    summary: 'Sign in with a login or e-mail address and a password',
    description:
      'Answers a bearer token for the other routes and the user. `username` is a login or an e-mail address (trimmed, ' +
      'either case). Needs `X-API-KEY`, no token. Every refusal gives the same answer, so that the reply does not tell ' +
      'which accounts exist; failed sign-ins are limited per username and per address (429). The fields may come in a ' +
      'JSON or form body, or in the query string (the body wins).',
    tags: ['account'],
    security: [{ apiKey: [] }],
    consumes: CONSUMES,
    headers: RequestHeaders,
    body: Type.Object(
      { username: Credential('A login or an e-mail address.', 'alice'), password: Credential('The password.', 'secret') },
      { additionalProperties: true, examples: [{ username: 'alice', password: 'secret' }] },
    ),
    querystring: Type.Object({
      username: Credential('As `username` in the body, when the body does not name it.', 'alice'),
      password: Credential('As `password` in the body, when the body does not name it (a body keeps it out of logs).', 'secret'),
    }),
    response: { 200: success(SignInReply, 'The token and the signed-in user.'), ...signInErrors(limits) },
  };
}
