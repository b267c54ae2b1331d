/**
 * The audit log (docs/server-api.md, "Audit log"): one row per change made through the server
 * API, the CLI's moderation commands or (later) the staff console: when, who, what, which ids, and
 * the reason when one was given. A row names ids and counts, never a user's data (an erasure's row
 * names the user id only). Kept AUDIT_RETENTION_DAYS.
 */

/** Who made a change: a server key (by its name), the CLI on the server's shell, or a staff member. */
export type ActorKind = 'server_key' | 'cli' | 'staff';

export interface Actor {
  kind: ActorKind;
  /** The key's name, `cli`, or the staff member's e-mail. */
  name: string;
}

export const CLI_ACTOR: Actor = { kind: 'cli', name: 'cli' };

/** What was done, `<target>.<verb>`. */
export type AuditAction =
  | 'user.upsert'
  | 'user.disable'
  | 'user.enable'
  | 'user.erase'
  | 'user.export'
  | 'user.token'
  | 'listing.upsert'
  | 'listing.delete'
  | 'catalog.import'
  | 'report.close'
  | 'message.delete'
  | 'delivery.retry'
  /** A shared setting changed (details.key: which). */
  | 'settings.change'
  /** A staff member read a conversation's messages (the reason says why). */
  | 'conversation.read'
  | 'staff.add'
  | 'staff.remove'
  | 'staff.reset'
  /** A console request the member's role does not allow (details.action: what was asked). */
  | 'staff.denied';

/** A change as it is recorded; `targetId` null when it is about no one thing (an import). */
export interface AuditRecord {
  at: number;
  actor: Actor;
  action: AuditAction;
  targetKind:
    'user' | 'listing' | 'catalog' | 'report' | 'message' | 'webhook' | 'mail' | 'push' | 'pusher' | 'staff' | 'conversation' | 'settings';
  targetId: number | null;
  reason: string | null;
  /** Ids and counts only (an import's counts, a token's lifetime). */
  details: Record<string, number | string | boolean> | null;
}

export interface AuditEntry extends AuditRecord {
  id: number;
}

export interface AuditFilter {
  /** Rows at or after this time (epoch ms). */
  since?: number;
  /** Only this actor's (the key's name, `cli`, the staff member). */
  actor?: string;
  /** Only this action's. */
  action?: string;
  /** Rows with a smaller id than this (the page before): newest first. */
  beforeId?: number;
  limit: number;
}

/** Where the rows go. The console writes with a staff Actor through the same port. */
export interface AuditLog {
  record(entry: AuditRecord): Promise<void>;
  /** Newest first. */
  list(filter: AuditFilter): Promise<AuditEntry[]>;
  /** Forgets the rows older than `before` (epoch ms); how many. */
  prune(before: number): Promise<number>;
}

/** The longest reason kept: a reason is the operator's note, not a document. */
export const REASON_MAX_LENGTH = 1000;
