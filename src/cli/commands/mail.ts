/** souk mail list|retry: the mail outbox (docs/mail.md), seen and sent again. */
import type { MailStatus } from '../../domain/mail.js';
import type { Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';
import { tableRow } from '../terminal.js';

const STATUSES: readonly MailStatus[] = ['pending', 'sent', 'skipped', 'failed'];

function outboxOf(ctx: CliContext) {
  if (!ctx.store.mailOutbox) throw new CliError('this database keeps no mail outbox');
  return ctx.store.mailOutbox;
}

export async function listMails(ctx: CliContext, status: string | undefined, limit: string | undefined) {
  if (status !== undefined && !STATUSES.includes(status as MailStatus))
    throw new CliError(`--status must be one of ${STATUSES.join(', ')}, got "${status}"`);
  const n = limit === undefined ? 100 : Number(limit);
  if (!Number.isSafeInteger(n) || n < 1 || n > 100_000) throw new CliError(`--limit must be an integer from 1 to 100000, got "${limit}"`);
  const rows = await outboxOf(ctx).list({ status: status as MailStatus | undefined, limit: n });
  if (ctx.config.mail.smtpUrl === undefined) {
    ctx.err('note: SMTP_URL is unset, so no mail is sent: set it (and MAIL_FROM off WordPress), then restart souk serve; see docs/mail.md');
  }
  ctx.out('id\tstatus\tattempts\tcreated\tsent\tuser\tconversation\tmessages\tnote');
  for (const d of rows) {
    const sent = d.sentAt === null ? '' : new Date(d.sentAt).toISOString();
    const messages = `${d.firstMessageId}-${d.lastMessageId}`;
    ctx.out(tableRow([d.id, d.status, d.attempts, new Date(d.createdAt).toISOString(), sent, d.userId, d.conId, messages, d.lastError]));
  }
}

export async function retryMails(ctx: CliContext, ids: string[]) {
  const bad = ids.find((a) => !/^[1-9]\d{0,15}$/.test(a));
  if (bad !== undefined) throw new CliError(`mail ids must be positive integers, got "${bad}"`);
  const n = await outboxOf(ctx).retry(ids.map(Number), Date.now());
  ctx.out(`${n} failed mail${n === 1 ? '' : 's'} will be sent again`);
}

export const mailCommands: Command[] = [
  {
    name: 'mail list',
    summary: 'list the mails about waiting messages, newest first',
    about:
      'Lists the mail outbox, newest first, one mail a line separated by tabs: id, status (pending, sent, skipped, failed), attempts, created, sent, recipient user id, conversation id, the messages it covers (first-last id), and the note (why it was skipped, or the last SMTP error).',
    options: {
      status: { value: 'S', help: `only mails in this state: ${STATUSES.join(', ')}` },
      limit: { value: 'N', help: 'at most N mails (1 to 100000; default 100)' },
    },
    examples: ['souk mail list', 'souk mail list --status failed'],
    run: ({ options }) => withStore((ctx) => listMails(ctx, options.status, options.limit)),
  },
  {
    name: 'mail retry',
    summary: 'send failed mails again',
    about:
      'Sends failed mails again, with a new retry window: those named, or every failed one when no id is given. A conversation with a mail pending already keeps that one (it carries the messages).',
    args: [{ name: 'ID', help: "a mail's id (souk mail list shows them)", optional: true, repeats: true }],
    examples: ['souk mail retry', 'souk mail retry 12 13'],
    run: ({ args }) => withStore((ctx) => retryMails(ctx, args)),
  },
];
