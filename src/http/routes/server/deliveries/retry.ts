/** POST {SERVER_API_PREFIX}/deliveries/{id}/retry: a failed delivery sent again (docs/server-api.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { maskUrlSecrets } from '../../../../config.js';
import { parseDeliveryId, retryDelivery } from '../../../../domain/operator/deliveries.js';
import { serverDelivery } from '../../../../present/server/deliveries.js';
import { badRequest } from '../../../errors.js';
import type { RouteDeps } from '../../../deps.js';
import { changeOf, operatorError, READ_BY_HAND } from '../common.js';
import { DELIVERY_ID_MESSAGE } from '../deliveries.schema.js';
import { retryDeliverySchema } from './retry.schema.js';

export const serverRetryDeliveryRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.post(
    '/deliveries/:id/retry',
    { schema: retryDeliverySchema({ bodyLimit: deps.bodyLimit }), validatorCompiler: READ_BY_HAND },
    async (request) => {
      const raw = (request.params as { id?: string }).id ?? '';
      const ref = parseDeliveryId(raw);
      if (!ref) throw badRequest(DELIVERY_ID_MESSAGE);
      const result = await retryDelivery(deps.server!.operator, changeOf(request), ref);
      if (!result.ok) throw operatorError(result, raw);
      return serverDelivery(result.delivery, maskUrlSecrets);
    },
  );
};
