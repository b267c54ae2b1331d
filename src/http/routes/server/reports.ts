/** GET {SERVER_API_PREFIX}/reports: as `souk reports list`, a page at a time (docs/server-api.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listReports, type ReportStatus } from '../../../domain/operator/reports.js';
import { serverReport } from '../../../present/server/reports.js';
import { badRequest } from '../../errors.js';
import type { RouteDeps } from '../../deps.js';
import { nextCursor, READ_BY_HAND, readCursor, readLimit } from './common.js';
import { listReportsSchema } from './reports.schema.js';

export const serverReportRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.get('/reports', { schema: listReportsSchema({ bodyLimit: deps.bodyLimit }), validatorCompiler: READ_BY_HAND }, async (request) => {
    const query = request.query as Record<string, unknown>;
    const status = query.status;
    if (status !== undefined && status !== '' && status !== 'open' && status !== 'closed')
      throw badRequest('status must be open or closed.');
    const limit = readLimit(query.limit);
    const beforeId = readCursor(query.cursor);
    const reports = await listReports(deps.server!.operator, {
      limit,
      ...(status ? { status: status as ReportStatus } : {}),
      ...(beforeId === undefined ? {} : { beforeId }),
    });
    return { data: reports.map(serverReport), next_cursor: nextCursor(reports, limit) };
  });
};
