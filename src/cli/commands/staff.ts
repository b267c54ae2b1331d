/** souk staff add|list|remove|reset: the console's staff (docs/console.md). */
import { newSetupToken, setupDigest } from '../../auth/staff-tokens.js';
import { CLI_ACTOR } from '../../domain/audit.js';
import { addStaff, removeStaff, resetStaff, type StaffChange } from '../../domain/staff/members.js';
import { isSetUp, isStaffRole, STAFF_ROLES } from '../../domain/staff/staff.js';
import type { Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';

const deps = (ctx: CliContext) => ({ staff: ctx.store.staff, audit: ctx.store.audit, now: Date.now });

function refused(result: StaffChange, email: string): never {
  const error = result.ok ? '' : result.error;
  if (error === 'invalid_email') throw new CliError(`EMAIL must be an e-mail address, got "${email}"`);
  if (error === 'exists')
    throw new CliError(`a staff member with the e-mail ${email} exists: souk staff reset ${email} sends a new set-up link`);
  throw new CliError(`no staff member with the e-mail ${email}`);
}

/** The link, once: only its token's digest is stored. */
function printLink(ctx: CliContext, token: string, expiresAt: number) {
  ctx.out(`${ctx.config.consoleUrl}/setup/${token}`);
  ctx.err(`set-up link printed once; it expires ${new Date(expiresAt).toISOString()} (send it to the member by a private channel)`);
}

export async function addStaffMember(ctx: CliContext, email: string, role: string | undefined): Promise<void> {
  if (role === undefined || !isStaffRole(role)) throw new CliError(`--role must be one of ${STAFF_ROLES.join(', ')}, got "${role ?? ''}"`);
  const token = newSetupToken();
  const result = await addStaff(deps(ctx), CLI_ACTOR, email, role, setupDigest(token));
  if (!result.ok) refused(result, email);
  printLink(ctx, token, result.expiresAt);
}

export async function resetStaffMember(ctx: CliContext, email: string): Promise<void> {
  const token = newSetupToken();
  const result = await resetStaff(deps(ctx), CLI_ACTOR, email, setupDigest(token));
  if (!result.ok) refused(result, email);
  printLink(ctx, token, result.expiresAt);
}

export async function removeStaffMember(ctx: CliContext, email: string): Promise<void> {
  const result = await removeStaff(deps(ctx), CLI_ACTOR, email);
  if (!result.ok) refused(result, email);
  ctx.out(`staff member ${result.email} removed: their session ends at their next request`);
}

export async function listStaff(ctx: CliContext): Promise<void> {
  const now = Date.now();
  ctx.out('email\trole\tstate\tadded');
  for (const m of await ctx.store.staff.list()) {
    const state = isSetUp(m) ? 'active' : (m.setupExpiresAt ?? 0) > now ? 'set-up link pending' : 'set-up link expired';
    ctx.out([m.email, m.role, state, new Date(m.createdAt).toISOString()].join('\t'));
  }
}

const EMAIL_ARG = { name: 'EMAIL', help: "the member's e-mail address, their name in the console and the audit log" };

export const staffCommands: Command[] = [
  {
    name: 'staff add',
    summary: 'add a console staff member; prints a one-time set-up link',
    about:
      'Adds a member of the staff console (docs/console.md) and prints a set-up link once, valid a day, where they choose a password and enrol a TOTP second factor. Roles: owner (staff and settings, and all a moderator does), moderator (reports, users, deletes), viewer (read-only, message bodies hidden).',
    args: [EMAIL_ARG],
    options: { role: { value: 'ROLE', help: 'owner, moderator or viewer', required: true } },
    examples: ['souk staff add ana@example.com --role moderator'],
    run: ({ args: [email], options }) => withStore((ctx) => addStaffMember(ctx, email!, options.role)),
  },
  {
    name: 'staff list',
    summary: 'list the console staff: e-mail, role, state, added',
    about: 'Lists the staff, one a line separated by tabs: e-mail, role, state (active, set-up link pending or expired), when added.',
    examples: ['souk staff list'],
    run: () => withStore((ctx) => listStaff(ctx)),
  },
  {
    name: 'staff remove',
    summary: 'remove a console staff member',
    about: 'Removes the member: their session ends at their next request. Their audit rows stay.',
    args: [EMAIL_ARG],
    examples: ['souk staff remove ana@example.com'],
    run: ({ args: [email] }) => withStore((ctx) => removeStaffMember(ctx, email!)),
  },
  {
    name: 'staff reset',
    summary: "forget a member's password and TOTP; prints a new set-up link",
    about:
      "Forgets the member's password and TOTP secret (a lost phone, a leaked password): their session ends, and a new set-up link, valid a day, is printed once.",
    args: [EMAIL_ARG],
    examples: ['souk staff reset ana@example.com'],
    run: ({ args: [email] }) => withStore((ctx) => resetStaffMember(ctx, email!)),
  },
];
