/** POST {SERVER_API_PREFIX}/users/{id}/tokens: the marketplace signs its user in, Souk hands the token (docs/server-api.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { issueUserToken } from '../../../../domain/operator/users.js';
import { badRequest } from '../../../errors.js';
import type { RouteDeps } from '../../../deps.js';
import { changeOf, operatorError, pathId, READ_BY_HAND } from '../common.js';
import { userTokenSchema } from './tokens.schema.js';

export const serverTokenRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const server = deps.server!;
  const maxTtl = server.operator.tokenMaxTtlS;
  const schema = userTokenSchema({ bodyLimit: deps.bodyLimit, tokenMaxTtlS: maxTtl, tokenTtlS: server.tokenTtlS });
  const ttlProblem = `ttl must be an integer from 1 to ${maxTtl} (TOKEN_MAX_TTL_S).`;
  app.post('/users/:id/tokens', { schema, validatorCompiler: READ_BY_HAND }, async (request) => {
    const id = pathId(request.params);
    const body = request.body as Record<string, unknown> | null;
    if (body !== null && body !== undefined && (typeof body !== 'object' || Array.isArray(body)))
      throw badRequest('The request body must be a JSON object.');
    const ttl = body?.ttl ?? server.tokenTtlS;
    if (typeof ttl !== 'number' || !Number.isSafeInteger(ttl) || ttl < 1 || ttl > maxTtl) throw badRequest(ttlProblem);
    const result = await issueUserToken(server.operator, changeOf(request), id, ttl);
    if (!result.ok) throw operatorError(result, id);
    return { jwt_token: result.token, expires_in: result.exp };
  });
};
