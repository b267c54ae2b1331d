/**
 * privacy/user/block (docs/safety.md): the users the caller blocked, as the plugin lists them,
 * and blocking or unblocking one. **Fixes:** blocking yourself is refused; blocking twice keeps
 * one entry; staff (administrators) cannot be blocked.
 */
import type { User } from '../../model.js';
import type { Repositories, UnitOfWork } from '../../ports.js';

export type BlockUserError = 'user_not_found' | 'self';
export type UnblockUserError = 'user_not_found' | 'not_blocked';

export type BlockedUsersResult<E> = { ok: true; value: User[] } | { ok: false; error: E };

/** The users `blockerId` blocked that still exist, in the order blocked. */
export async function listBlockedUsers(repos: Repositories, blockerId: number): Promise<User[]> {
  const ids = await repos.blocks.blockedUserIds(blockerId);
  const users = await Promise.all(ids.map((id) => repos.users.findById(id)));
  return users.filter((user): user is User => user !== undefined);
}

export async function blockUser(
  uow: UnitOfWork,
  blockerId: number,
  blockedId: number,
  now: number = Date.now(),
): Promise<BlockedUsersResult<BlockUserError>> {
  // No writer: the store locks both users' rows itself, in id order (BlockRepository.blockUser).
  return uow.transaction(async (repos): Promise<BlockedUsersResult<BlockUserError>> => {
    const blocked = await repos.users.findById(blockedId);
    // A block closes the chat both ways: one against staff would shut the site's moderators out.
    // Answered as an unknown user, so that the route tells nobody who is staff.
    if (!blocked || blocked.isAdmin) return { ok: false, error: 'user_not_found' };
    if (blockedId === blockerId) return { ok: false, error: 'self' };
    await repos.blocks.blockUser(blockerId, blockedId, now);
    return { ok: true, value: await listBlockedUsers(repos, blockerId) };
  });
}

export async function unblockUser(uow: UnitOfWork, blockerId: number, blockedId: number): Promise<BlockedUsersResult<UnblockUserError>> {
  return uow.transaction(async (repos): Promise<BlockedUsersResult<UnblockUserError>> => {
    if (!(await repos.users.findById(blockedId))) return { ok: false, error: 'user_not_found' };
    if (!(await repos.blocks.unblockUser(blockerId, blockedId))) return { ok: false, error: 'not_blocked' };
    return { ok: true, value: await listBlockedUsers(repos, blockerId) };
  });
}
