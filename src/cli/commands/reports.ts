/** souk reports list|close: the reports of listings, conversations and messages, worked through by the operator. */
import { closeReport as close, listReports as list } from '../../domain/operator/reports.js';
import type { Report } from '../../domain/reports.js';
import type { Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';
import { cliChange, operatorOf, REASON_OPTION, refusal } from '../operator.js';
import { tableRow } from '../terminal.js';
import { positiveInteger } from './token.js';

/** One line of the listing: tabs between the fields, the reason on one line. */
function line(r: Report): string {
  const about =
    r.kind === 'listing'
      ? `listing ${r.listingId}`
      : r.kind === 'message'
        ? `message ${r.messageId} in conversation ${r.conId}`
        : `conversation ${r.conId}`;
  const reason = r.reason.replace(/\s+/g, ' ').trim();
  return tableRow([
    r.id,
    r.closedAt === null ? 'open' : 'closed',
    new Date(r.createdAt).toISOString(),
    r.reporterId,
    r.reportedUserId ?? '',
    about,
    r.messages.length,
    reason,
  ]);
}

export async function listReports(ctx: CliContext, open: boolean, limit: string | undefined): Promise<void> {
  const n = limit === undefined ? 100 : Number(limit);
  if (!Number.isSafeInteger(n) || n < 1 || n > 100_000) throw new CliError(`--limit must be an integer from 1 to 100000, got "${limit}"`);
  const reports = await list(operatorOf(ctx), { ...(open ? { status: 'open' as const } : {}), limit: n });
  ctx.out('id\tstatus\tcreated\treporter\treported user\tabout\tmessages kept\treason');
  for (const r of reports) ctx.out(line(r));
}

export async function closeReport(ctx: CliContext, idArg: string, reason?: string): Promise<void> {
  const id = positiveInteger(idArg, 'ID');
  const result = await close(operatorOf(ctx), cliChange(reason), id);
  if (!result.ok) throw refusal(result, id);
  ctx.out(result.changed ? `report ${id} closed` : `report ${id} was already closed`);
}

export const reportsCommands: Command[] = [
  {
    name: 'reports list',
    summary: 'list the reports, newest first',
    about:
      'Lists the reports made with POST listing/report and POST my/chat/report, newest first, one a line separated by tabs: id, open or closed, time, reporter, reported user, what was reported, how many messages the report keeps, reason.',
    options: {
      open: { value: '', flag: true, help: 'only the reports not closed yet' },
      limit: { value: 'N', help: 'at most N reports (1 to 100000; default 100)' },
    },
    examples: ['souk reports list --open', 'souk reports list --limit 20'],
    run: ({ options }) => withStore((ctx) => listReports(ctx, options.open === 'true', options.limit)),
  },
  {
    name: 'reports close',
    summary: 'close a report once dealt with',
    about: 'Marks the report closed: it leaves `souk reports list --open`, and stays in the list without it.',
    args: [{ name: 'ID', help: "the report's id (souk reports list shows them)" }],
    options: REASON_OPTION,
    examples: ['souk reports close 12', 'souk reports close 12 --reason "message removed, user warned"'],
    run: ({ args: [id], options }) => withStore((ctx) => closeReport(ctx, id!, options.reason)),
  },
];
