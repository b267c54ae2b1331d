/** GET /console/audit: the audit log, newest first, filtered by actor, action and date. */
import type { FastifyInstance } from 'fastify';
import { plainTextProblem } from '../../../domain/chat/common.js';
import { pathId, type ConsoleDeps } from './common.js';

const PAGE = 50;

export async function consoleAuditRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  app.get('/audit', async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const actor = query.actor?.trim() || undefined;
    const action = query.action?.trim() || undefined;
    const sinceText = query.since?.trim() || undefined;
    const since = sinceText && /^\d{4}-\d{2}-\d{2}$/.test(sinceText) ? Date.parse(`${sinceText}T00:00:00Z`) : undefined;
    const error =
      sinceText && since === undefined
        ? 'since must be a date, YYYY-MM-DD'
        : [actor, action].some((v) => v !== undefined && plainTextProblem(v) !== null)
          ? 'actor and action must be plain text'
          : undefined;
    if (error) return reply.page('audit', { title: 'Audit log', rows: [], actor, action, since: sinceText, error }, 400);
    const before = query.before === undefined ? undefined : pathId(query.before);
    const rows = await deps.operator.audit.list({
      limit: PAGE,
      ...(actor === undefined ? {} : { actor }),
      ...(action === undefined ? {} : { action }),
      ...(since === undefined || Number.isNaN(since) ? {} : { since }),
      ...(before === undefined ? {} : { beforeId: before }),
    });
    const next = rows.length === PAGE ? rows.at(-1)!.id : undefined;
    return reply.page('audit', { title: 'Audit log', rows, actor, action, since: sinceText, next, error }, error ? 400 : 200);
  });
}
