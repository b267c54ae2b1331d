/** The moderator's removal of a message: `souk messages delete` and the server API's `DELETE messages/{id}`. */
import type { Message } from '../model.js';
import { removeMessage } from '../moderation.js';
import { auditRecord, type Change, type OperatorDeps, type OperatorResult } from './context.js';

/**
 * Removes the message as the plugin's admin does (domain/moderation.ts): the row keeps its place,
 * its text and attachments go, and so do its stored files. Removing it again changes nothing more.
 */
export async function deleteMessage(deps: OperatorDeps, change: Change, messageId: number): Promise<OperatorResult<{ message: Message }>> {
  const before = await deps.repos.messages.findById(messageId);
  // A message emptied before (or empty) has nothing more to lose: no second row.
  const changes = (before?.text ?? '') !== '' || (before?.attachments?.length ?? 0) > 0;
  const audit = changes ? auditRecord(deps, change, { action: 'message.delete', targetKind: 'message', targetId: messageId }) : undefined;
  const result = await removeMessage(deps.uow, messageId, deps.now(), audit);
  if (!result.ok) return { ok: false, error: 'no_such_message' };
  await deps.deleteFiles(before?.attachments ?? []);
  return { ok: true, message: result.value };
}
