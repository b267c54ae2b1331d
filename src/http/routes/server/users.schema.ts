/** Schemas of PUT and DELETE {SERVER_API_PREFIX}/users/{id} (docs/server-api.md). */
import { Type } from '@sinclair/typebox';
import { ImportUser } from '../../../domain/import-document.js';
import { badRequest, conflict, notFound, SITE_CATALOG_MESSAGE } from '../../errors.js';
import { serverApiErrors } from '../errors.schema.js';
import { IdParams, ReasonQuery, SERVER_SECURITY, SERVER_TAG, success } from './common.schema.js';

const UserBody = Type.Composite([Type.Omit(ImportUser, ['id']), Type.Object({ id: Type.Optional(ImportUser.properties.id) })], {
  additionalProperties: false,
  description: "The user in the import format (docs/cli.md); `id`, when given, must be the path's.",
  examples: [{ login: 'amina', name: 'Amina B.', email: 'amina@example.com', first_name: 'Amina', registered: '2026-11-02T09:15:00Z' }],
});

export function upsertUserSchema(limits: { bodyLimit: number }) {
  return {
    security: SERVER_SECURITY,
    tags: [SERVER_TAG],
    operationId: 'serverUpsertUser',
    summary: 'Create or replace a user',
    description:
      "Creates the user with this id, or replaces their profile, from the import format (docs/cli.md), validated as `souk import` validates it: a refusal names the field. A `password_hash` is stored when given, else the stored one stays. Sending the same body again changes nothing. On a WordPress site: 409, the users are the site's. The reason for the audit log goes in the query string.",
    params: IdParams,
    querystring: ReasonQuery,
    body: UserBody,
    response: {
      200: success(Type.Object({ id: Type.Integer() }, { examples: [{ id: 7 }] }), 'The user is stored.'),
      ...serverApiErrors(limits, {
        400: [badRequest('login: expected string'), badRequest('id must be a positive integer.')],
        409: [conflict(SITE_CATALOG_MESSAGE)],
      }),
    },
  };
}

export function eraseUserSchema(limits: { bodyLimit: number }) {
  return {
    security: SERVER_SECURITY,
    tags: [SERVER_TAG],
    operationId: 'serverEraseUser',
    summary: "Erase a user's data",
    description:
      'As `souk users erase`: their favourites, blocks, devices, tokens, events and reports go; their messages keep their place with text and attachments removed; the profile becomes "Deleted user"; they cannot sign in. Asking again answers 200 and changes nothing more. On a WordPress site the wp_users row stays (`profile_erased` false). The audit log\'s row names the user\'s id only.',
    params: IdParams,
    querystring: ReasonQuery,
    response: {
      200: success(
        Type.Object(
          {
            id: Type.Integer(),
            erased: Type.Literal(true),
            profile_erased: Type.Boolean(),
            messages: Type.Integer(),
            favourites: Type.Integer(),
            devices: Type.Integer(),
            events: Type.Integer(),
            blocks: Type.Integer(),
            reports: Type.Integer(),
          },
          {
            examples: [
              { id: 7, erased: true, profile_erased: true, messages: 12, favourites: 3, devices: 1, events: 40, blocks: 0, reports: 1 },
            ],
          },
        ),
        'The user is erased; what went, counted.',
      ),
      ...serverApiErrors(limits, { 400: [badRequest('id must be a positive integer.')], 404: [notFound('user', 7)] }),
    },
  };
}
