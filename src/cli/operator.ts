/** The operator's use cases as the CLI runs them (src/operator-deps.ts), its files and the refusals' wording. */
import { operatorDeps } from '../operator-deps.js';
import { CLI_ACTOR } from '../domain/audit.js';
import type { Change, OperatorDeps, OperatorError } from '../domain/operator/context.js';
import type { MessageAttachment } from '../domain/model.js';
import { CliError, type CliContext } from './context.js';

/** Deletes the stored files of removed messages, unless another message names the same content (docs/files.md). */
async function deleteUploads(ctx: CliContext, attachments: readonly MessageAttachment[]): Promise<void> {
  if (attachments.length === 0) return;
  // Loaded when used: the CLI's other commands start without the image library and the S3 client.
  const { deleteMessageFiles } = await import('../domain/files/sweep.js');
  const { closeFileStorage, openFileStorage } = await import('../store/files/open.js');
  const { dir, url, s3, s3PublicUrl } = ctx.config.files;
  const storage = await openFileStorage({ dir, url, s3, s3PublicUrl });
  try {
    await deleteMessageFiles(storage, ctx.store.fileReferences, attachments);
  } finally {
    closeFileStorage(storage);
  }
}

export function operatorOf(ctx: CliContext): OperatorDeps {
  return operatorDeps(ctx.store, {
    tokenKeys: () => ctx.authSettings(),
    deleteFiles: (attachments) => deleteUploads(ctx, attachments),
    tokenMaxTtlS: ctx.config.tokenMaxTtlS,
  });
}

/** The CLI's change: the actor `cli`, and the reason given with --reason. */
export const cliChange = (reason: string | undefined): Change => ({ actor: CLI_ACTOR, reason: reason ?? null });

/** The --reason option of the commands that change something. */
export const REASON_OPTION = { reason: { value: 'TEXT', help: 'why, for the audit log (souk audit list)' } };

/** A refused operation, in the CLI's words. */
export function refusal(error: OperatorError, id: number | string): CliError {
  switch (error.error) {
    case 'no_such_user':
      return new CliError(`no user with id ${id}`);
    case 'erased':
      return new CliError(`user ${id} was erased: an erased user stays disabled`);
    case 'disabled':
      return new CliError(`user ${id} is disabled; a token for it would be refused`);
    case 'no_such_message':
      return new CliError(`no message with id ${id}`);
    case 'no_such_report':
      return new CliError(`no report with id ${id}`);
    case 'no_such_listing':
      return new CliError(`no listing with id ${id}`);
    case 'no_such_delivery':
      return new CliError(`no delivery with id ${id}`);
    case 'not_failed':
      return new CliError(`delivery ${id} is ${error.status}, not failed: only a failed delivery is sent again`);
    case 'superseded':
      return new CliError(`mail ${id} stays failed: a mail about the same conversation is pending and carries its messages`);
    case 'site_catalog':
      return new CliError('on a WordPress database the site manages users and listings: import and remove them through WordPress');
    case 'invalid':
      return new CliError(`${error.path}: ${error.problem} (nothing was imported)`);
  }
}
