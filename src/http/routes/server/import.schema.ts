/** Schema of POST {SERVER_API_PREFIX}/import (docs/server-api.md). */
import { Type } from '@sinclair/typebox';
import { ImportDocument } from '../../../domain/import-document.js';
import { badRequest, conflict, payloadTooLarge, SITE_CATALOG_MESSAGE } from '../../errors.js';
import { serverApiErrors } from '../errors.schema.js';
import { ReasonQuery, SERVER_SECURITY, SERVER_TAG, success } from './common.schema.js';

export function importSchema(limits: { bodyLimit: number; importLimit: number }) {
  const errors = serverApiErrors(
    { bodyLimit: limits.importLimit },
    {
      400: [badRequest('listings[3].owner_id: user 9 does not exist'), badRequest('users[0].login: expected string')],
      409: [conflict(SITE_CATALOG_MESSAGE)],
    },
  );
  return {
    security: SERVER_SECURITY,
    tags: [SERVER_TAG],
    operationId: 'serverImport',
    summary: 'Upsert a whole document of users and listings',
    description: `As \`souk import\`: every user and listing of the document (docs/import-schema.json) upserted by id, all or nothing: a document with one bad entry stores nothing, and the refusal names the entry (\`listings[3].owner_id\`). At most ${limits.importLimit} bytes (SERVER_API_IMPORT_LIMIT): larger is 413. On a WordPress site: 409.`,
    querystring: ReasonQuery,
    body: {
      ...ImportDocument,
      examples: [{ users: [{ id: 7, login: 'amina' }], listings: [{ id: 101, owner_id: 7, title: 'City bike' }] }],
    },
    response: {
      200: success(
        Type.Object({ users: Type.Integer(), listings: Type.Integer() }, { examples: [{ users: 1, listings: 1 }] }),
        'Everything is stored: how many of each.',
      ),
      ...errors,
      413: { ...errors[413], 'x-examples': { PAYLOAD_TOO_LARGE: { value: payloadTooLarge(limits.importLimit).body } } },
    },
  };
}
