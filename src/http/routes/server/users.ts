/** PUT and DELETE {SERVER_API_PREFIX}/users/{id}: a marketplace's back end keeps its users in step (docs/server-api.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { dearHashProblem } from '../../../auth/passwords/forms.js';
import { parseImportDocument } from '../../../domain/import-document.js';
import { eraseUser, upsertUser } from '../../../domain/operator/users.js';
import { badRequest, MESSAGES } from '../../errors.js';
import type { RouteDeps } from '../../deps.js';
import { changeOf, operatorError, pathId, READ_BY_HAND } from './common.js';
import { eraseUserSchema, upsertUserSchema } from './users.schema.js';

/** `users[0].login` -> `login`: the field as the client sent it. */
export const fieldIn = (kind: 'users' | 'listings') => (path: string) => path.replace(new RegExp(`^${kind}\\[0\\]\\.?`), '') || '(body)';

/** The body as one entry of an import document, with the path's id. */
export function entryOf(body: unknown, id: number): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest(MESSAGES.notAnObject);
  const entry = body as Record<string, unknown>;
  if (entry.id !== undefined && entry.id !== id) throw badRequest(`id: must be the id in the path (${id}), or left out`);
  return { ...entry, id };
}

export const serverUserRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const server = deps.server!;
  const limits = { bodyLimit: deps.bodyLimit };
  // The body is read by the import's own parser, whose messages name the field as `souk import` does.
  app.put('/users/:id', { schema: upsertUserSchema(limits), validatorCompiler: READ_BY_HAND }, async (request) => {
    const id = pathId(request.params);
    const change = changeOf(request, false);
    if (server.operator.siteOwnsCatalog) throw operatorError({ error: 'site_catalog' }, id);
    const parsed = parseImportDocument({ users: [entryOf(request.body, id)] }, dearHashProblem);
    if (!parsed.ok) throw badRequest(`${fieldIn('users')(parsed.path)}: ${parsed.problem}`);
    const result = await upsertUser(server.operator, change, parsed.catalog.users[0]!);
    if (!result.ok) throw operatorError(result, id, fieldIn('users'));
    return { id };
  });

  app.delete('/users/:id', { schema: eraseUserSchema(limits), validatorCompiler: READ_BY_HAND }, async (request) => {
    const id = pathId(request.params);
    const result = await eraseUser(server.operator, changeOf(request), id);
    if (!result.ok) throw operatorError(result, id);
    const e = result.erasure;
    return {
      id,
      erased: true as const,
      profile_erased: e.profileErased,
      messages: e.messages,
      favourites: e.favourites,
      devices: e.devices,
      events: e.events,
      blocks: e.blocks,
      reports: e.reports,
    };
  });
};
