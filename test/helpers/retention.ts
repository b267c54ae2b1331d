/**
 * A write racing the retention of inactive conversations: run while the retention's batch has
 * deleted what it found inactive before `before` and has not yet committed (it commits 300 ms
 * later), so that the write meets the delete's locks.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { UnitOfWork } from '../../src/domain/ports.js';

export async function duringRetention<T>(
  store: UnitOfWork,
  before: number,
  write: () => Promise<T>,
): Promise<{ result: T; deleted: number | null }> {
  let deleting!: () => void;
  const deletedYet = new Promise<void>((resolve) => (deleting = resolve));
  const retention = store.transaction(async (repos) => {
    const n = await repos.moderation!.deleteInactiveConversations(before, 10);
    deleting();
    await sleep(300);
    return n;
  });
  await deletedYet;
  const result = await write();
  return { result, deleted: await retention };
}
