/**
 * The operator's moderation (docs/safety.md): disabling and enabling a user, removing a
 * message as the plugin's admin does, and the check every send makes in its transaction that
 * neither participant is closed (disabled or erased). The erasure and the export are in
 * user-data.ts, the retention of inactive conversations in retention.ts.
 */
import type { AuditRecord } from './audit.js';
import type { Message } from './model.js';
import type { Repositories, UnitOfWork } from './ports.js';
import { recordForBoth } from './chat/events.js';

/** A user's standing, as moderation sees it. */
export interface ModerationState {
  disabled: boolean;
  /** Erased (user-data.ts): disabled for good, `enable` refuses. */
  erased: boolean;
}

/** What the erasure removed, for the command's report. */
export interface ErasureCounts {
  messages: number;
  favourites: number;
  devices: number;
  events: number;
  /** False where the profile is not Souk's to change (a WordPress site's wp_users row). */
  profileErased: boolean;
}

/**
 * Moderation's writes and locks, in a unit of work's transaction (Repositories.moderation). The
 * locks are what makes a disable or an erasure and a message that races it come out in one
 * order: once lockUser's transaction committed, no message from or to the user commits after.
 */
export interface ModerationRepository {
  /**
   * The user's state, undefined when there is no such user, and a lock that holds every send from
   * or to them (closedAmong) until this transaction ends: PostgreSQL FOR UPDATE of the user's row,
   * MySQL the moderation barrier row exclusively, SQLite its one write lock.
   */
  lockUser(userId: number): Promise<ModerationState | undefined>;
  /**
   * Of `userIds`, those closed to the chat (disabled or erased), as committed; the read holds them
   * against a lockUser until this transaction ends (PostgreSQL FOR KEY SHARE, which no other send
   * waits for; MySQL the barrier row shared), so a send and a disable come out in one order.
   */
  closedAmong(userIds: number[]): Promise<number[]>;
  /**
   * closedAmong of the conversation's two participants (none when there is no such conversation),
   * asked without knowing them, so that a database may send it with the conversation's own read.
   * Optional: without it, a use case reads the conversation first, then closedAmong.
   */
  closedInConversation?(conId: number): Promise<number[]>;
  /**
   * closedAmong of `userId` and the listing's owner (of `userId` alone when there is no such
   * listing), asked without knowing the owner, so that a database may send it with the listing's
   * own read. Optional: without it, a use case reads the listing first, then closedAmong.
   */
  closedWithOwnerOf?(listingId: number, userId: number): Promise<number[]>;
  setDisabled(userId: number, disabled: boolean, at: number): Promise<void>;
  /** The change's audit row, in this transaction: it commits with the change or not at all. */
  recordAudit(entry: AuditRecord): Promise<void>;
  /**
   * Removes a message as the plugin's admin does: the row stays in its place, its text and
   * attachments go, its type becomes the plugin's `system`, and its edit history (MessageEditRepository)
   * goes with its text. The message after, or undefined.
   */
  removeMessage(messageId: number): Promise<Message | undefined>;
  /**
   * Erases the user's data that Souk holds (user-data.ts, eraseUser): their messages' text and
   * attachments (the rows stay, for the other side) and their edit history, favourites, push devices, event log and
   * outbox rows, and the profile where it is Souk's; marks them erased and disabled.
   */
  erase(userId: number, at: number): Promise<ErasureCounts>;
  /**
   * Deletes at most `limit` conversations whose last message (or, without one, whose start) is
   * older than `before`, with their messages (retention.ts); how many. Null when another instance
   * is deleting at the moment (PostgreSQL's advisory lock, MySQL's GET_LOCK): this one skips.
   */
  deleteInactiveConversations(before: number, limit: number): Promise<number | null>;
}

export type ModerationError = 'no_such_user' | 'erased' | 'no_such_message';

export type ModerationResult<T = void> = { ok: true; value: T } | { ok: false; error: ModerationError };

function moderation(repos: Repositories) {
  if (!repos.moderation) throw new Error('this store has no moderation repository');
  return repos.moderation;
}

/**
 * Which of a message's two participants is closed to the chat (disabled or erased), if either:
 * read in the writing transaction, before it writes, so that a message racing a disable or an
 * erasure commits before it or not at all.
 */
export async function closedParticipant(repos: Repositories, writerId: number, readerId: number): Promise<'writer' | 'reader' | null> {
  if (!repos.moderation) return null;
  return closedSide(await repos.moderation.closedAmong([writerId, readerId]), writerId);
}

/** closedParticipant's answer, from those closed among the two participants, the writer one of them. */
export function closedSide(closed: readonly number[], writerId: number): 'writer' | 'reader' | null {
  if (closed.length === 0) return null;
  return closed.includes(writerId) ? 'writer' : 'reader';
}

/**
 * Disables or enables a user. Disabled, they cannot sign in and are neither sender nor recipient;
 * an erased user stays disabled. Returns whether anything changed; `audit` is written with the
 * change, in its transaction, when there was one.
 */
export async function setUserDisabled(
  uow: UnitOfWork,
  userId: number,
  disabled: boolean,
  now = Date.now(),
  audit?: AuditRecord,
): Promise<ModerationResult<boolean>> {
  return uow.transaction(async (repos): Promise<ModerationResult<boolean>> => {
    const m = moderation(repos);
    const state = await m.lockUser(userId);
    if (!state) return { ok: false, error: 'no_such_user' };
    if (state.erased) return disabled ? { ok: true, value: false } : { ok: false, error: 'erased' };
    if (state.disabled === disabled) return { ok: true, value: false };
    await m.setDisabled(userId, disabled, now);
    if (audit) await m.recordAudit(audit);
    return { ok: true, value: true };
  });
}

/**
 * Removes a message as the plugin's admin does, and tells both participants' open clients
 * (`message.update` with the emptied message), in the same transaction.
 */
export async function removeMessage(
  uow: UnitOfWork,
  messageId: number,
  now = Date.now(),
  audit?: AuditRecord,
): Promise<ModerationResult<Message>> {
  return uow.transaction(async (repos): Promise<ModerationResult<Message>> => {
    const message = await moderation(repos).removeMessage(messageId);
    if (!message) return { ok: false, error: 'no_such_message' };
    if (audit) await moderation(repos).recordAudit(audit);
    const conversation = await repos.conversations.findById(message.conId);
    if (conversation)
      await recordForBoth(repos, conversation.senderId, conversation.recipientId, { type: 'message.update', message, removed: true }, now);
    return { ok: true, value: message };
  });
}
