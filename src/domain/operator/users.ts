/**
 * The operator's users: upsert one (the import format), disable and enable, erase, export, and
 * hand out a token (the server API's sign-in for a marketplace that signs its users in itself).
 * Shared by `souk users ...`, `souk token` and the server API's `users/{id}` routes.
 */
import { importCatalog } from '../catalog.js';
import type { UserRecord } from '../model.js';
import { setUserDisabled } from '../moderation.js';
import { eraseUser as erase, exportUserData, type Erasure, type UserExport } from '../user-data.js';
import { audited, auditRecord, type Change, type OperatorDeps, type OperatorResult } from './context.js';

/** Creates or replaces the user (their password hash stays when the record has none). */
export async function upsertUser(deps: OperatorDeps, change: Change, user: UserRecord): Promise<OperatorResult<object>> {
  if (deps.siteOwnsCatalog) return { ok: false, error: 'site_catalog' };
  const audit = auditRecord(deps, change, { action: 'user.upsert', targetKind: 'user', targetId: user.id });
  const result = await importCatalog(deps.uow, { users: [user], listings: [] }, audit);
  if (!result.ok) return { ok: false, error: 'invalid', path: result.path, problem: result.problem };
  return { ok: true };
}

/**
 * Disables (no sign-in, no message to or from them, their tokens revoked) or enables a user.
 * `changed` false: they already were.
 */
export async function setDisabled(
  deps: OperatorDeps,
  change: Change,
  userId: number,
  disabled: boolean,
): Promise<OperatorResult<{ changed: boolean }>> {
  const audit = auditRecord(deps, change, { action: disabled ? 'user.disable' : 'user.enable', targetKind: 'user', targetId: userId });
  const result = await setUserDisabled(deps.uow, userId, disabled, deps.now(), audit);
  if (!result.ok) return { ok: false, error: result.error === 'erased' ? 'erased' : 'no_such_user' };
  await deps.closeSessions(userId, disabled);
  return { ok: true, changed: result.value };
}

/**
 * Erases the user (domain/user-data.ts): again is harmless. The files their messages carried go
 * (read before the erasure empties the messages; the orphan sweep takes those of conversations
 * they had left), then their tokens. The audit row names the user's id, nothing of theirs.
 */
export async function eraseUser(deps: OperatorDeps, change: Change, userId: number): Promise<OperatorResult<{ erasure: Erasure }>> {
  const before = await exportUserData({ repos: deps.repos, safety: deps.safety }, userId, deps.now());
  const uploads = before?.conversations.flatMap((c) => c.messages.filter((m) => m.sender_id === userId).flatMap((m) => m.attachments));
  const audit = auditRecord(deps, change, { action: 'user.erase', targetKind: 'user', targetId: userId });
  const result = await erase(deps.uow, deps.safety, userId, deps.now(), audit);
  if (!result.ok) return { ok: false, error: 'no_such_user' };
  await deps.deleteFiles(uploads ?? []);
  await deps.closeSessions(userId, true);
  return { ok: true, erasure: result.value };
}

/** Everything Souk keeps of and for the user, as one document; reading it is recorded. */
export async function exportUser(deps: OperatorDeps, change: Change, userId: number): Promise<OperatorResult<{ document: UserExport }>> {
  const document = await exportUserData(
    { repos: deps.repos, safety: deps.safety, ...(deps.deviceTokens ? { deviceTokens: deps.deviceTokens } : {}) },
    userId,
    deps.now(),
  );
  if (!document) return { ok: false, error: 'no_such_user' };
  await audited(deps, change, { action: 'user.export', targetKind: 'user', targetId: userId });
  return { ok: true, document };
}

/**
 * The token sign-in would hand the user, valid `ttlS` seconds (at most TOKEN_MAX_TTL_S, which
 * the caller checks first). A disabled user's would be refused, so none is issued.
 */
export async function issueUserToken(
  deps: OperatorDeps,
  change: Change,
  userId: number,
  ttlS: number,
): Promise<OperatorResult<{ token: string; exp: number }>> {
  const user = await deps.repos.users.findById(userId);
  if (!user) return { ok: false, error: 'no_such_user' };
  if (user.disabled) return { ok: false, error: 'disabled' };
  const issued = await deps.issueToken(user, ttlS);
  await audited(deps, change, { action: 'user.token', targetKind: 'user', targetId: userId, details: { ttl: ttlS } });
  return { ok: true, ...issued };
}
