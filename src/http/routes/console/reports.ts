/**
 * The reports queue: GET /console/reports (open first), GET /console/reports/{id} (the report in
 * its context) and its actions, each with a reason: POST .../close, .../delete-message,
 * .../disable-user. The actions are the operator's use cases (domain/operator/), audited with the
 * staff member as the actor; a viewer's is refused 403 and audited.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { closeReport, listReports } from '../../../domain/operator/reports.js';
import { deleteMessage } from '../../../domain/operator/messages.js';
import { setDisabled } from '../../../domain/operator/users.js';
import { checkedReason, reportInContext, shownText } from '../../../domain/staff/console.js';
import { field, pathId, permitted, signedIn, staffActor, type ConsoleDeps } from './common.js';

const PAGE = 50;

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

const notFound = (reply: FastifyReply, what: string) =>
  reply.page('error', { title: 'Not found', message: `There is no such ${what}.` }, 404);

export async function consoleReportRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  app.get('/reports', async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const status = query.status === 'closed' ? 'closed' : 'open';
    const before = query.before === undefined ? undefined : pathId(query.before);
    const reports = await listReports(deps.operator, { status, limit: PAGE, ...(before === undefined ? {} : { beforeId: before }) });
    const next = reports.length === PAGE ? reports.at(-1)!.id : undefined;
    return reply.page('reports', { title: 'Reports', reports, status, next });
  });

  async function shown(request: IdRequest, reply: FastifyReply, status = 200, error?: string) {
    const id = pathId(request.params.id);
    const found = id === undefined ? undefined : await reportInContext(deps.operator, id);
    if (!found) return notFound(reply, 'report');
    const role = signedIn(request).role;
    const text = (t: string) => shownText(role, t);
    const query = request.query as Record<string, string | undefined>;
    return reply.page('report', { title: `Report ${found.report.id}`, ...found, text, done: query.done, error }, status);
  }

  app.get('/reports/:id', (request: IdRequest, reply) => shown(request, reply));

  /** An action on the report: the role checked, the reason read, then `act`; back to the report. */
  function action(
    name: string,
    act: (id: number, change: { actor: ReturnType<typeof staffActor>; reason: string }) => Promise<string | undefined>,
  ) {
    return async (request: IdRequest, reply: FastifyReply) => {
      const id = pathId(request.params.id);
      if (id === undefined) return notFound(reply, 'report');
      if (!(await permitted(deps, request, reply, 'moderate', { action: name, targetKind: 'report', targetId: id }))) return reply;
      const reason = checkedReason(field(request.body, 'reason'));
      if (!reason.ok) return shown(request, reply, 400, reason.problem);
      const problem = await act(id, { actor: staffActor(signedIn(request)), reason: reason.reason });
      if (problem) return shown(request, reply, problem === 'report' ? 404 : 409, problem === 'report' ? undefined : problem);
      return reply.redirect(`/console/reports/${id}?done=${name}`, 303);
    };
  }

  app.post(
    '/reports/:id/close',
    action('report.close', async (id, change) => {
      const result = await closeReport(deps.operator, change, id);
      return result.ok ? undefined : 'report';
    }),
  );
  app.post(
    '/reports/:id/delete-message',
    action('message.delete', async (id, change) => {
      const report = await deps.operator.reports.find(id);
      if (!report) return 'report';
      if (report.messageId === null) return 'this report names no message';
      const result = await deleteMessage(deps.operator, change, report.messageId);
      return result.ok ? undefined : 'the message is gone';
    }),
  );
  app.post(
    '/reports/:id/disable-user',
    action('user.disable', async (id, change) => {
      const report = await deps.operator.reports.find(id);
      if (!report) return 'report';
      if (report.reportedUserId === null) return 'this report names no user';
      const result = await setDisabled(deps.operator, change, report.reportedUserId, true);
      return result.ok ? undefined : result.error === 'erased' ? 'the user was erased' : 'the user is gone';
    }),
  );
}
