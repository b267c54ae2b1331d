/** POST {SERVER_API_PREFIX}/users/{id}/disable: as `souk users disable` (docs/server-api.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { setDisabled } from '../../../../domain/operator/users.js';
import type { RouteDeps } from '../../../deps.js';
import { changeOf, operatorError, pathId, READ_BY_HAND } from '../common.js';
import { standingSchema } from './disable.schema.js';

/** Disable and enable differ by the state asked for: one handler (users/enable.ts registers the other). */
export const standingRoute =
  (disabled: boolean, path: string): FastifyPluginAsyncTypebox<RouteDeps> =>
  async (app, deps) => {
    app.post(
      path,
      { schema: standingSchema({ bodyLimit: deps.bodyLimit }, disabled), validatorCompiler: READ_BY_HAND },
      async (request) => {
        const id = pathId(request.params);
        const result = await setDisabled(deps.server!.operator, changeOf(request), id, disabled);
        if (!result.ok) throw operatorError(result, id);
        return { id, disabled, changed: result.changed };
      },
    );
  };

export const serverDisableRoutes = standingRoute(true, '/users/:id/disable');
