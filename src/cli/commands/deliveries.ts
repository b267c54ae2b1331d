/** souk deliveries list|retry: the outboxes' deliveries, as the server API's `deliveries` routes show them. */
import { maskUrlSecrets } from '../../config.js';
import {
  DELIVERY_KINDS,
  DELIVERY_STATUSES,
  deliveryId,
  listDeliveries as list,
  parseDeliveryId,
  retryDelivery as retry,
  type Delivery,
  type DeliveryKind,
} from '../../domain/operator/deliveries.js';
import type { Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';
import { cliChange, operatorOf, REASON_OPTION, refusal } from '../operator.js';
import { tableRow } from '../terminal.js';

/** What the outbox keeps of the delivery besides its status: the webhook's type and receiver, the mail's conversation, ... */
function about(d: Delivery): string {
  switch (d.kind) {
    case 'webhook':
      return `${d.delivery.type} to ${maskUrlSecrets(d.delivery.url)}`;
    case 'mail':
      return `conversation ${d.delivery.conId}, messages ${d.delivery.firstMessageId} to ${d.delivery.lastMessageId}`;
    case 'push':
      return `message ${d.delivery.messageId}`;
    case 'pusher':
      return d.delivery.name;
  }
}

export async function listDeliveries(ctx: CliContext, kind: string | undefined, status: string | undefined, limit: string | undefined) {
  if (!(DELIVERY_KINDS as readonly string[]).includes(kind ?? ''))
    throw new CliError(`--kind must be one of ${DELIVERY_KINDS.join(', ')}, got "${kind ?? ''}"`);
  const statuses = DELIVERY_STATUSES[kind as DeliveryKind];
  if (status !== undefined && !statuses.includes(status))
    throw new CliError(`--status must be one of ${statuses.join(', ')} for ${kind} deliveries, got "${status}"`);
  const n = limit === undefined ? 100 : Number(limit);
  if (!Number.isSafeInteger(n) || n < 1 || n > 100_000) throw new CliError(`--limit must be an integer from 1 to 100000, got "${limit}"`);
  const found = await list(operatorOf(ctx), { kind: kind as DeliveryKind, limit: n, ...(status ? { status } : {}) });
  ctx.out('id\tstatus\tattempts\tcreated\tuser\tabout\tlast error');
  for (const d of found) {
    const { delivery } = d;
    const id = deliveryId({ kind: d.kind, id: delivery.id });
    ctx.out(
      tableRow([
        id,
        delivery.status,
        delivery.attempts,
        new Date(delivery.createdAt).toISOString(),
        delivery.userId,
        about(d),
        delivery.lastError,
      ]),
    );
  }
}

export async function retryDelivery(ctx: CliContext, idArg: string, reason: string | undefined) {
  const ref = parseDeliveryId(idArg);
  if (!ref)
    throw new CliError(`ID must be a delivery id such as webhook:12 (webhook, mail, push or pusher, a colon, a number), got "${idArg}"`);
  const result = await retry(operatorOf(ctx), cliChange(reason), ref);
  if (!result.ok) throw refusal(result, idArg);
  ctx.out(`${idArg} will be sent again`);
}

export const deliveriesCommands: Command[] = [
  {
    name: 'deliveries list',
    summary: "list an outbox's deliveries, newest first",
    about:
      'Lists the deliveries of one outbox (webhook, mail, push or pusher), newest first, one a line separated by tabs: id (webhook:12), status, attempts, time, user, what it is about, last error. As GET /souk/v1/deliveries.',
    options: {
      kind: { value: 'K', help: `which outbox: ${DELIVERY_KINDS.join(', ')}` },
      status: { value: 'S', help: 'only deliveries in this status (failed: their retries ran out)' },
      limit: { value: 'N', help: 'at most N deliveries (1 to 100000; default 100)' },
    },
    examples: ['souk deliveries list --kind webhook --status failed', 'souk deliveries list --kind mail --limit 20'],
    run: ({ options }) => withStore((ctx) => listDeliveries(ctx, options.kind, options.status, options.limit)),
  },
  {
    name: 'deliveries retry',
    summary: 'send a failed delivery again',
    about:
      'Puts a failed delivery back to pending, due now, with a fresh count of attempts, and writes the audit row in the same transaction. As POST /souk/v1/deliveries/{id}/retry.',
    args: [{ name: 'ID', help: "the delivery's id, such as webhook:12 (souk deliveries list shows them)" }],
    options: REASON_OPTION,
    examples: ['souk deliveries retry webhook:12', 'souk deliveries retry mail:7 --reason "SMTP server fixed"'],
    run: ({ args: [id], options }) => withStore((ctx) => retryDelivery(ctx, id!, options.reason)),
  },
];
