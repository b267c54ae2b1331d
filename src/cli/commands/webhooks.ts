/** souk webhooks list|retry|replay: the webhook outbox, seen and sent again. */
import { maskUrlSecrets } from '../../config.js';
import type { WebhookStatus } from '../../domain/ports.js';
import type { Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';
import { tableRow } from '../terminal.js';

const STATUSES: readonly WebhookStatus[] = ['pending', 'delivered', 'failed'];

function outboxOf(ctx: CliContext) {
  if (!ctx.store.webhooks) throw new CliError('this database keeps no webhook outbox');
  return ctx.store.webhooks;
}

/** An RFC 3339 time (2026-11-23T18:05:55Z), or a time ago: 30m, 2h, 1d. */
export function parseSince(value: string | undefined, now: number): number {
  if (value === undefined) throw new CliError('--since is required: a time (2026-11-23T18:05:55Z) or an age (30m, 2h, 1d)');
  const age = /^(\d{1,6})([smhd])$/.exec(value);
  if (age) return now - Number(age[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[age[2] as 's' | 'm' | 'h' | 'd'];
  const at = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(at)) throw new CliError(`--since must be a time such as 2026-11-23T18:05:55Z or an age such as 2h, got "${value}"`);
  return at;
}

export async function listWebhooks(ctx: CliContext, status: string | undefined, since: string | undefined, limit: string | undefined) {
  if (status !== undefined && !STATUSES.includes(status as WebhookStatus))
    throw new CliError(`--status must be one of ${STATUSES.join(', ')}, got "${status}"`);
  const n = limit === undefined ? 100 : Number(limit);
  if (!Number.isSafeInteger(n) || n < 1 || n > 100_000) throw new CliError(`--limit must be an integer from 1 to 100000, got "${limit}"`);
  const rows = await outboxOf(ctx).list({
    status: status as WebhookStatus | undefined,
    since: since === undefined ? undefined : parseSince(since, Date.now()),
    limit: n,
  });
  if (ctx.config.webhooks.urls.length === 0) {
    // Deliveries are written only while WEBHOOK_URLS names receivers (the store records them per address).
    ctx.err(
      'note: WEBHOOK_URLS is unset, so no webhooks are sent: set it to the receivers\' addresses (comma-separated) and WEBHOOK_SECRET (whsec_...), then restart souk serve; see "Webhooks" in docs/events.md',
    );
  }
  ctx.out('id\tstatus\tattempts\tcreated\ttype\twebhook-id\turl\tlast error');
  for (const d of rows) {
    const created = new Date(d.createdAt).toISOString();
    ctx.out(tableRow([d.id, d.status, d.attempts, created, d.type, d.messageId, maskUrlSecrets(d.url), d.lastError]));
  }
}

export async function retryWebhooks(ctx: CliContext, ids: string[]) {
  const bad = ids.find((a) => !/^[1-9]\d{0,15}$/.test(a));
  if (bad !== undefined) throw new CliError(`delivery ids must be positive integers, got "${bad}"`);
  const n = await outboxOf(ctx).retry(ids.map(Number), Date.now());
  ctx.out(`${n} failed deliver${n === 1 ? 'y' : 'ies'} will be sent again`);
}

export async function replayWebhooks(ctx: CliContext, since: string | undefined) {
  const n = await outboxOf(ctx).replay(parseSince(since, Date.now()), Date.now());
  ctx.out(`${n} deliver${n === 1 ? 'y' : 'ies'} will be sent again`);
}

const SINCE = 'a time (2026-11-23T18:05:55Z) or an age (30m, 2h, 1d)';

export const webhooksCommands: Command[] = [
  {
    name: 'webhooks list',
    summary: 'list webhook deliveries, newest first',
    about:
      'Lists the deliveries of the webhook outbox, newest first, one a line separated by tabs: id, status, attempts, time, event type, webhook-id, receiver (its password masked), last error.',
    options: {
      status: { value: 'S', help: `only deliveries in this state: ${STATUSES.join(', ')}` },
      since: { value: 'T', help: `only deliveries written since T: ${SINCE}` },
      limit: { value: 'N', help: 'at most N deliveries (1 to 100000; default 100)' },
    },
    examples: ['souk webhooks list', 'souk webhooks list --status failed --since 2h'],
    run: ({ options }) => withStore((ctx) => listWebhooks(ctx, options.status, options.since, options.limit)),
  },
  {
    name: 'webhooks retry',
    summary: 'send failed deliveries again',
    about: 'Sends failed deliveries again, with a new retry window: those named, or every failed one when no id is given.',
    args: [{ name: 'ID', help: "a delivery's id (souk webhooks list shows them)", optional: true, repeats: true }],
    examples: ['souk webhooks retry', 'souk webhooks retry 12 13'],
    run: ({ args }) => withStore((ctx) => retryWebhooks(ctx, args)),
  },
  {
    name: 'webhooks replay',
    summary: 'send again every delivery since a time',
    about:
      'Sends again every delivery written since T, delivered ones too, with their webhook-id (so receivers can drop those they already have): for a receiver that lost what it was sent.',
    options: { since: { value: 'T', help: SINCE, required: true } },
    examples: ['souk webhooks replay --since 2h', 'souk webhooks replay --since 2026-11-23T18:05:55Z'],
    run: ({ options }) => withStore((ctx) => replayWebhooks(ctx, options.since)),
  },
];
