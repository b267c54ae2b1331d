/** The reports as the operator works through them: `souk reports` and the server API's `reports` routes. */
import type { Report } from '../reports.js';
import { auditRecord, type Change, type OperatorDeps, type OperatorResult } from './context.js';

export type ReportStatus = 'open' | 'closed';

/** Newest first, a page of at most `limit` from below `beforeId`. */
export function listReports(deps: OperatorDeps, filter: { status?: ReportStatus; beforeId?: number; limit: number }): Promise<Report[]> {
  return deps.reports.list({
    open: filter.status === 'open',
    closed: filter.status === 'closed',
    limit: filter.limit,
    ...(filter.beforeId === undefined ? {} : { beforeId: filter.beforeId }),
  });
}

/** Closes the report; `changed` false when it was closed already. */
export async function closeReport(deps: OperatorDeps, change: Change, id: number): Promise<OperatorResult<{ changed: boolean }>> {
  const audit = auditRecord(deps, change, { action: 'report.close', targetKind: 'report', targetId: id });
  const outcome = await deps.reports.close(id, deps.now(), audit);
  if (outcome === 'not_found') return { ok: false, error: 'no_such_report' };
  return { ok: true, changed: outcome === 'closed' };
}
