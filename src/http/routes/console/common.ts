/**
 * What the console's routes share (docs/console.md): their needs, the signed-in member, the page
 * renderer's call and the role check that writes a refusal to the audit log.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor, AuditRecord } from '../../../domain/audit.js';
import type { OperatorDeps } from '../../../domain/operator/context.js';
import type { User } from '../../../domain/model.js';
import type { SettingsRepository } from '../../../domain/ports.js';
import type { ConsoleReads } from '../../../domain/staff/reads.js';
import type { TunableValues } from '../../../domain/tunables.js';
import { may, type ConsolePermission, type SiteAdmin, type StaffMember, type StaffRepository } from '../../../domain/staff/staff.js';

export interface ConsoleDeps {
  staff: StaffRepository;
  /** The operator's use cases (domain/operator/), as the CLI and the server API run them. */
  operator: OperatorDeps;
  /** A user by login or e-mail (the users page's search). */
  findUserByName(loginOrEmail: string): Promise<User | undefined>;
  /** The day's activity, a listing's conversations, users by display name. */
  reads: ConsoleReads;
  /** The key that seals the session cookie: generated per installation (console_session_key). */
  sessionKey: Buffer;
  idleTimeoutMs: number;
  /** CONSOLE_URL: where the set-up links point. */
  consoleUrl: string;
  /**
   * On a WordPress site: its administrators (the `administrator` role, which holds
   * `manage_rtcl_options`), by login or e-mail, and a check of a password against the site's hash.
   */
  siteAdmins?: { find(loginOrEmail: string): Promise<SiteAdmin | undefined>; verify(password: string, hash: string): Promise<boolean> };
  /** The shared settings (the bad words). */
  settings: SettingsRepository;
  /** The abuse limits' and retention's values in the environment: the defaults of the stored ones. */
  tunableDefaults: TunableValues;
  /** The environment's other settings that bear on moderation (mail), name and value, shown read-only. */
  environment: Array<[name: string, value: string]>;
  now(): number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in staff member (the console's pages behind sign-in). */
    staff: StaffMember | null;
  }
  interface FastifyReply {
    /** Renders `console/views/NAME.eta` in the layout, with the form's CSRF token and the member. */
    page(name: string, data?: Record<string, unknown>, status?: number): FastifyReply;
  }
}

/** The staff member as the audit log names them. */
export const staffActor = (member: StaffMember): Actor => ({ kind: 'staff', name: member.email });

export const signedIn = (request: FastifyRequest): StaffMember => {
  if (!request.staff) throw new Error('console route outside the signed-in scope');
  return request.staff;
};

/**
 * Whether the member may; when not, the refusal is audited (what was asked, of which target) and a
 * 403 page answered, and the caller returns.
 */
export async function permitted(
  deps: ConsoleDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  permission: ConsolePermission,
  asked: { action: string; targetKind: AuditRecord['targetKind']; targetId: number | null },
): Promise<boolean> {
  const member = signedIn(request);
  if (may(member.role, permission)) return true;
  await deps.operator.audit.record({
    at: deps.now(),
    actor: staffActor(member),
    action: 'staff.denied',
    targetKind: asked.targetKind,
    targetId: asked.targetId,
    reason: null,
    details: { action: asked.action, role: member.role },
  });
  reply.page('error', { title: 'Not allowed', message: `Your role (${member.role}) may not do this. The attempt was recorded.` }, 403);
  return false;
}

/** A reason as the forms send it: trimmed; empty is missing. */
export function formReason(body: unknown): string | undefined {
  const raw = (body as { reason?: unknown } | undefined)?.reason;
  if (typeof raw !== 'string') return undefined;
  const reason = raw.trim();
  return reason === '' ? undefined : reason;
}

/** A form field as text ('' when absent or not text). */
export const field = (body: unknown, name: string): string => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

/** A path's id: a positive integer, else undefined (the page answers 404). */
export function pathId(raw: string): number | undefined {
  if (!/^[1-9]\d{0,15}$/.test(raw)) return undefined;
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : undefined;
}
