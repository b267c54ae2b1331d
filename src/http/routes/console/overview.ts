/**
 * GET /console: the overview: open reports, today's messages, active users and new conversations,
 * failed deliveries per outbox and the latest changes.
 */
import type { FastifyInstance } from 'fastify';
import { DELIVERY_KINDS, listDeliveries } from '../../../domain/operator/deliveries.js';
import { listReports } from '../../../domain/operator/reports.js';
import { activityToday, knownZone } from '../../../domain/staff/reads.js';
import type { ConsoleDeps } from './common.js';

/** The cookie in which the console's script keeps the browser's time zone (console.js). */
const ZONE_COOKIE = 'souk_console_zone';

/** Counted up to here; beyond, "100+". */
const COUNT_UP_TO = 100;

const counted = (n: number) => (n > COUNT_UP_TO ? `${COUNT_UP_TO}+` : String(n));

export async function consoleOverviewRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  const { operator } = deps;
  const kept = { webhook: operator.webhooks, mail: operator.mailOutbox, push: operator.pushOutbox, pusher: operator.pusherOutbox };
  // Only the outboxes this installation keeps (Pusher's when it is on, none of mail without the store's outbox).
  const kinds = DELIVERY_KINDS.filter((kind) => kept[kind] !== undefined);

  app.get('/', async (request, reply) => {
    const open = await listReports(operator, { status: 'open', limit: COUNT_UP_TO + 1 });
    const failed = await Promise.all(
      kinds.map(async (kind) => ({
        kind,
        count: counted((await listDeliveries(operator, { kind, status: 'failed', limit: COUNT_UP_TO + 1 })).length),
      })),
    );
    const zone = knownZone(request.cookies[ZONE_COOKIE]);
    const today = await activityToday(deps.reads, deps.now(), zone);
    const latest = await operator.audit.list({ limit: 10 });
    return reply.page('overview', { title: 'Overview', openReports: counted(open.length), today, zone, failed, latest });
  });
}
