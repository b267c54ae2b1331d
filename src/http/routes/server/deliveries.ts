/** GET {SERVER_API_PREFIX}/deliveries: the outboxes' deliveries, a page at a time (docs/server-api.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { maskUrlSecrets } from '../../../config.js';
import { DELIVERY_KINDS, DELIVERY_STATUSES, listDeliveries, type DeliveryKind } from '../../../domain/operator/deliveries.js';
import { serverDelivery } from '../../../present/server/deliveries.js';
import { badRequest } from '../../errors.js';
import type { RouteDeps } from '../../deps.js';
import { cursorOf, READ_BY_HAND, readCursor, readLimit } from './common.js';
import { KIND_MESSAGE, listDeliveriesSchema, statusMessage } from './deliveries.schema.js';

export const serverDeliveryRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.get(
    '/deliveries',
    { schema: listDeliveriesSchema({ bodyLimit: deps.bodyLimit }), validatorCompiler: READ_BY_HAND },
    async (request) => {
      const query = request.query as Record<string, unknown>;
      const kind = query.kind;
      if (typeof kind !== 'string' || !(DELIVERY_KINDS as readonly string[]).includes(kind)) throw badRequest(KIND_MESSAGE);
      const status = query.status;
      if (
        status !== undefined &&
        status !== '' &&
        (typeof status !== 'string' || !DELIVERY_STATUSES[kind as DeliveryKind].includes(status))
      )
        throw badRequest(statusMessage(kind as DeliveryKind));
      const limit = readLimit(query.limit);
      const beforeId = readCursor(query.cursor);
      const deliveries = await listDeliveries(deps.server!.operator, {
        kind: kind as DeliveryKind,
        limit,
        ...(status ? { status: status as string } : {}),
        ...(beforeId === undefined ? {} : { beforeId }),
      });
      const last = deliveries.at(-1);
      return {
        data: deliveries.map((d) => serverDelivery(d, maskUrlSecrets)),
        next_cursor: deliveries.length === limit && last ? cursorOf(last.delivery.id) : null,
      };
    },
  );
};
