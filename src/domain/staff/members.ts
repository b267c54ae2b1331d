/**
 * The staff as an owner manages them (`souk staff add|list|remove|reset`): each change audited.
 * The set-up token is made by the caller (auth/staff.ts), which hands its digest here.
 */
import type { Actor, AuditLog } from '../audit.js';
import { SETUP_TTL_MS, SITE_PASSWORD, STAFF_EMAIL, staffEmail, type StaffMember, type StaffRepository, type StaffRole } from './staff.js';

export interface StaffDeps {
  staff: StaffRepository;
  audit: AuditLog;
  now(): number;
}

export type StaffChange =
  { ok: true; email: string; expiresAt: number } | { ok: false; error: 'invalid_email' | 'exists' | 'no_such_staff' };

async function record(
  deps: StaffDeps,
  actor: Actor,
  action: 'staff.add' | 'staff.remove' | 'staff.reset',
  email: string,
  role?: StaffRole,
) {
  const member = await deps.staff.findByEmail(email);
  await deps.audit.record({
    at: deps.now(),
    actor,
    action,
    targetKind: 'staff',
    targetId: member?.id ?? null,
    reason: null,
    details: role ? { role } : null,
  });
}

export async function addStaff(deps: StaffDeps, actor: Actor, emailGiven: string, role: StaffRole, digest: string): Promise<StaffChange> {
  const email = staffEmail(emailGiven);
  if (!STAFF_EMAIL.test(email)) return { ok: false, error: 'invalid_email' };
  const expiresAt = deps.now() + SETUP_TTL_MS;
  if (!(await deps.staff.add({ email, role, setupDigest: digest, setupExpiresAt: expiresAt, at: deps.now() })))
    return { ok: false, error: 'exists' };
  await record(deps, actor, 'staff.add', email, role);
  return { ok: true, email, expiresAt };
}

/** Forgets the member's password and TOTP secret (their sessions end) and hands a new set-up link. */
export async function resetStaff(deps: StaffDeps, actor: Actor, emailGiven: string, digest: string): Promise<StaffChange> {
  const email = staffEmail(emailGiven);
  const expiresAt = deps.now() + SETUP_TTL_MS;
  if (!(await deps.staff.reset(email, digest, expiresAt, deps.now()))) return { ok: false, error: 'no_such_staff' };
  await record(deps, actor, 'staff.reset', email);
  return { ok: true, email, expiresAt };
}

export async function removeStaff(deps: StaffDeps, actor: Actor, emailGiven: string): Promise<StaffChange> {
  const email = staffEmail(emailGiven);
  const member = await deps.staff.findByEmail(email);
  if (!member || !(await deps.staff.remove(email))) return { ok: false, error: 'no_such_staff' };
  await deps.audit.record({
    at: deps.now(),
    actor,
    action: 'staff.remove',
    targetKind: 'staff',
    targetId: member.id,
    reason: null,
    details: null,
  });
  return { ok: true, email, expiresAt: 0 };
}

/**
 * A WordPress site's administrator enrols Souk's TOTP at their first sign-in: they become an owner
 * whose password is the site's (SITE_PASSWORD). The row is written as a set-up is, through a set-up
 * token no link carries; the enrolment is audited as the member's own.
 */
export async function enrolSiteAdmin(deps: StaffDeps, emailGiven: string, totpSecret: string): Promise<StaffMember | undefined> {
  const email = staffEmail(emailGiven);
  const at = deps.now();
  const digest = `site:${email}:${at}`;
  const existing = await deps.staff.findByEmail(email);
  if (existing && existing.passwordHash !== SITE_PASSWORD) return undefined;
  const placed = existing
    ? await deps.staff.reset(email, digest, at + SETUP_TTL_MS, at)
    : await deps.staff.add({ email, role: 'owner', setupDigest: digest, setupExpiresAt: at + SETUP_TTL_MS, at });
  if (!placed) return undefined;
  const member = await deps.staff.findByEmail(email);
  if (!member || !(await deps.staff.completeSetup(member.id, digest, SITE_PASSWORD, totpSecret, at))) return undefined;
  await deps.audit.record({
    at,
    actor: { kind: 'staff', name: email },
    action: 'staff.add',
    targetKind: 'staff',
    targetId: member.id,
    reason: null,
    details: { role: 'owner', site_admin: true },
  });
  return deps.staff.findById(member.id);
}
