/** souk audit list: the audit log of the changes made by server keys, the CLI's moderation and staff. */
import type { AuditEntry } from '../../domain/audit.js';
import type { Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';
import { parseSince } from './webhooks.js';

function line(e: AuditEntry): string {
  const target = e.targetId === null ? e.targetKind : `${e.targetKind} ${e.targetId}`;
  const details = e.details === null ? '' : JSON.stringify(e.details);
  const reason = (e.reason ?? '').replace(/\s+/g, ' ').trim();
  return [e.id, new Date(e.at).toISOString(), e.actor.kind, e.actor.name, e.action, target, details, reason].join('\t');
}

export async function listAudit(ctx: CliContext, options: { since?: string; actor?: string; limit?: string }): Promise<void> {
  const n = options.limit === undefined ? 100 : Number(options.limit);
  if (!Number.isSafeInteger(n) || n < 1 || n > 100_000)
    throw new CliError(`--limit must be an integer from 1 to 100000, got "${options.limit}"`);
  const rows = await ctx.store.audit.list({
    limit: n,
    ...(options.since === undefined ? {} : { since: parseSince(options.since, Date.now()) }),
    ...(options.actor === undefined ? {} : { actor: options.actor }),
  });
  ctx.out('id\ttime\tactor kind\tactor\taction\ttarget\tdetails\treason');
  for (const e of rows) ctx.out(line(e));
}

export const auditCommands: Command[] = [
  {
    name: 'audit list',
    summary: 'list the audit log, newest first',
    about:
      "Lists the changes made through the server API (actor: the key's name), the CLI's moderation and catalog commands (actor: cli) and the staff console, newest first, one a line separated by tabs: id, time, actor kind (server_key, cli, staff), actor, action, target, details (ids and counts), reason. Rows are kept AUDIT_RETENTION_DAYS.",
    options: {
      since: { value: 'T', help: 'only changes since T: a time (2026-11-23T18:05:55Z) or an age (30m, 2h, 1d)' },
      actor: { value: 'NAME', help: "only this actor's changes: a key's name, cli, or a staff member" },
      limit: { value: 'N', help: 'at most N rows (1 to 100000; default 100)' },
    },
    examples: ['souk audit list', 'souk audit list --since 1d --actor backend'],
    run: ({ options }) => withStore((ctx) => listAudit(ctx, options)),
  },
];
