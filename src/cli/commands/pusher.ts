/** souk pusher list: the Pusher outbox, what was sent to the site's Pusher app and what failed (docs/pusher.md). */
import type { PusherStatus } from '../../domain/pusher.js';
import type { Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';

const STATUSES: readonly PusherStatus[] = ['pending', 'sent', 'failed'];

export async function listPusherEvents(ctx: CliContext, status: string | undefined, limit: string | undefined) {
  if (!ctx.store.pusherOutbox) throw new CliError('this database keeps no Pusher outbox');
  if (status !== undefined && !STATUSES.includes(status as PusherStatus))
    throw new CliError(`--status must be one of ${STATUSES.join(', ')}, got "${status}"`);
  const n = limit === undefined ? 100 : Number(limit);
  if (!Number.isSafeInteger(n) || n < 1 || n > 100_000) throw new CliError(`--limit must be an integer from 1 to 100000, got "${limit}"`);
  const rows = await ctx.store.pusherOutbox.list({ status: status as PusherStatus | undefined, limit: n });
  if (!ctx.config.pusher.app && !ctx.store.sitePusherApp) {
    ctx.err(
      'note: PUSHER_URL is unset and this is not a WordPress site, so no Pusher events are sent: set PUSHER_URL (https://KEY:SECRET@api-CLUSTER.pusher.com/apps/APP_ID), then restart souk serve; see docs/pusher.md',
    );
  }
  ctx.out('id\tstatus\tattempts\tcreated\tsent\tevent\tuser\tlast error');
  for (const d of rows) {
    const iso = (at: number | null) => (at === null ? '' : new Date(at).toISOString());
    ctx.out([d.id, d.status, d.attempts, iso(d.createdAt), iso(d.sentAt), d.name, d.userId, d.lastError ?? ''].join('\t'));
  }
}

export const pusherCommands: Command[] = [
  {
    name: 'pusher list',
    summary: 'list Pusher events, newest first',
    about:
      'Lists the events of the Pusher outbox, newest first, one a line separated by tabs: id, status, attempts, time written, time sent, event name, the user whose channel it goes to, last error (or why it was trimmed).',
    options: {
      status: { value: 'S', help: `only events in this state: ${STATUSES.join(', ')}` },
      limit: { value: 'N', help: 'at most N events (1 to 100000; default 100)' },
    },
    examples: ['souk pusher list', 'souk pusher list --status failed'],
    run: ({ options }) => withStore((ctx) => listPusherEvents(ctx, options.status, options.limit)),
  },
];
