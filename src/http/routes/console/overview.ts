/** GET /console: the overview: open reports and the latest changes. */
import type { FastifyInstance } from 'fastify';
import { listReports } from '../../../domain/operator/reports.js';
import type { ConsoleDeps } from './common.js';

/** Counted up to here; beyond, "100+". */
const COUNT_UP_TO = 100;

export async function consoleOverviewRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  app.get('/', async (_request, reply) => {
    const open = await listReports(deps.operator, { status: 'open', limit: COUNT_UP_TO + 1 });
    const latest = await deps.operator.audit.list({ limit: 10 });
    return reply.page('overview', {
      title: 'Overview',
      openReports: open.length > COUNT_UP_TO ? `${COUNT_UP_TO}+` : String(open.length),
      latest,
    });
  });
}
