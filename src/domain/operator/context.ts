/**
 * What the operator's use cases need (docs/server-api.md): the ports of the store, the audit log,
 * and the few effects outside the database that a door provides alike (the CLI and the server
 * API build these from one function, src/operator-deps.ts). One implementation, two doors: `souk
 * users disable 7` and `POST /souk/v1/users/7/disable` call the same function with another actor.
 */
import type { Actor, AuditLog, AuditRecord } from '../audit.js';
import type { MailOutbox } from '../mail.js';
import type { MessageAttachment, User } from '../model.js';
import type { PushOutbox } from '../push.js';
import type { PusherOutbox } from '../pusher.js';
import type { CatalogUnitOfWork, ReportAdmin, Repositories, UnitOfWork, WebhookOutbox } from '../ports.js';
import type { SafetyRecords } from '../user-data.js';

export interface OperatorDeps {
  uow: UnitOfWork & CatalogUnitOfWork;
  /** Reads outside any transaction. */
  repos: Repositories;
  reports: ReportAdmin;
  audit: AuditLog;
  safety: SafetyRecords;
  /** The user's push devices' tokens, where the store keeps them (their export). */
  deviceTokens?: (userId: number) => Promise<string[]>;
  webhooks?: WebhookOutbox;
  mailOutbox?: MailOutbox;
  pushOutbox?: PushOutbox;
  pusherOutbox?: PusherOutbox;
  /**
   * After a disable or an erasure (`revoke`): every token of the user is refused, and every server
   * drops the users it cached, both within SETTINGS_REFRESH_MS; after an enable, only the latter.
   */
  closeSessions(userId: number, revoke: boolean): Promise<void>;
  /** Deletes the stored files of removed messages, unless another message names the same content. */
  deleteFiles(attachments: readonly MessageAttachment[]): Promise<void>;
  /** The token sign-in would hand the user, valid `ttlS` seconds. */
  issueToken(user: User, ttlS: number): Promise<{ token: string; exp: number }>;
  /** The longest lifetime of a token (TOKEN_MAX_TTL_S). */
  tokenMaxTtlS: number;
  /** The users and listings are a WordPress site's: Souk does not write them (the upserts are refused). */
  siteOwnsCatalog: boolean;
  now(): number;
}

/** Who asks, and why when they say. */
export interface Change {
  actor: Actor;
  reason?: string | null | undefined;
}

/** The change's audit row, as `audited` writes it; for a port that writes it in the change's own transaction. */
export function auditRecord(
  deps: OperatorDeps,
  change: Change,
  entry: Pick<AuditRecord, 'action' | 'targetKind' | 'targetId'> & { details?: AuditRecord['details'] },
): AuditRecord {
  return {
    at: deps.now(),
    actor: change.actor,
    reason: change.reason ?? null,
    details: entry.details ?? null,
    action: entry.action,
    targetKind: entry.targetKind,
    targetId: entry.targetId,
  };
}

/**
 * Writes the audit row of what changes nothing in the database (an export, a token handed out).
 * A change passes its row (`auditRecord`) to the port that makes it, which writes both in one
 * transaction: a failed change leaves no row, and no change is left without its row.
 */
export async function audited(
  deps: OperatorDeps,
  change: Change,
  entry: Pick<AuditRecord, 'action' | 'targetKind' | 'targetId'> & { details?: AuditRecord['details'] },
): Promise<void> {
  await deps.audit.record(auditRecord(deps, change, entry));
}

/** A refused operation: what was missing or in the way. */
export type OperatorError =
  | { error: 'no_such_user' | 'no_such_listing' | 'no_such_message' | 'no_such_report' | 'no_such_delivery' }
  | { error: 'erased' | 'disabled' | 'site_catalog' }
  /** A delivery that is not failed (`status`), or a failed mail whose conversation has a pending one that carries its messages. */
  | { error: 'not_failed'; status: string }
  | { error: 'superseded' }
  | { error: 'invalid'; path: string; problem: string };

export type OperatorResult<T> = ({ ok: true } & T) | ({ ok: false } & OperatorError);
