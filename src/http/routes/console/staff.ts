/**
 * The staff, as `souk staff` manages them: GET /console/staff lists them; an owner adds a member
 * (POST /console/staff: the set-up link shown once, in the answer), resets one (POST
 * .../{id}/reset: a new link) or removes one (POST .../{id}/remove). Another role's POST is
 * refused 403 and audited; each change is audited with the owner as the actor.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { newSetupToken, setupDigest } from '../../../auth/staff.js';
import { addStaff, removeStaff, resetStaff, type StaffChange } from '../../../domain/staff/members.js';
import { isSetUp, isStaffRole, STAFF_ROLES } from '../../../domain/staff/staff.js';
import { field, pathId, permitted, signedIn, staffActor, type ConsoleDeps } from './common.js';

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

const PROBLEMS: Record<string, string> = {
  invalid_email: 'email must be an e-mail address',
  exists: 'a member has this e-mail already (reset them for a new link)',
  no_such_staff: 'there is no such member',
};

export async function consoleStaffRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  const staffDeps = { staff: deps.staff, audit: deps.operator.audit, now: deps.now };

  async function shown(reply: FastifyReply, extra: Record<string, unknown> = {}, status = 200) {
    const now = deps.now();
    const members = (await deps.staff.list()).map((m) => ({
      id: m.id,
      email: m.email,
      role: m.role,
      state: isSetUp(m) ? 'active' : (m.setupExpiresAt ?? 0) > now ? 'set-up link pending' : 'set-up link expired',
    }));
    return reply.page('staff', { title: 'Staff', members, roles: STAFF_ROLES, ...extra }, status);
  }

  /** The answer to an add or a reset: the link, once. */
  const linkShown = (reply: FastifyReply, result: StaffChange, token: string) =>
    result.ok
      ? shown(reply, { link: `${deps.consoleUrl}/setup/${token}`, linkFor: result.email, expiresAt: result.expiresAt })
      : shown(reply, { error: PROBLEMS[result.error] }, result.error === 'no_such_staff' ? 404 : 400);

  app.get('/staff', (_request, reply) => shown(reply));

  app.post('/staff', async (request, reply) => {
    if (!(await permitted(deps, request, reply, 'administer', { action: 'staff.add', targetKind: 'staff', targetId: null }))) return reply;
    const role = field(request.body, 'role');
    if (!isStaffRole(role)) return shown(reply, { error: `role must be one of ${STAFF_ROLES.join(', ')}` }, 400);
    const token = newSetupToken();
    const result = await addStaff(staffDeps, staffActor(signedIn(request)), field(request.body, 'email'), role, setupDigest(token));
    return linkShown(reply, result, token);
  });

  /** The member a path names, or the page saying there is none. */
  async function named(request: IdRequest) {
    const id = pathId(request.params.id);
    return id === undefined ? undefined : deps.staff.findById(id);
  }

  app.post('/staff/:id/reset', async (request: IdRequest, reply) => {
    if (
      !(await permitted(deps, request, reply, 'administer', {
        action: 'staff.reset',
        targetKind: 'staff',
        targetId: pathId(request.params.id) ?? null,
      }))
    )
      return reply;
    const member = await named(request);
    if (!member) return shown(reply, { error: PROBLEMS.no_such_staff }, 404);
    const token = newSetupToken();
    return linkShown(reply, await resetStaff(staffDeps, staffActor(signedIn(request)), member.email, setupDigest(token)), token);
  });

  app.post('/staff/:id/remove', async (request: IdRequest, reply) => {
    if (
      !(await permitted(deps, request, reply, 'administer', {
        action: 'staff.remove',
        targetKind: 'staff',
        targetId: pathId(request.params.id) ?? null,
      }))
    )
      return reply;
    const member = await named(request);
    if (!member) return shown(reply, { error: PROBLEMS.no_such_staff }, 404);
    // Not oneself: the last owner would lock the console.
    if (member.id === signedIn(request).id) return shown(reply, { error: 'you cannot remove yourself' }, 400);
    await removeStaff(staffDeps, staffActor(signedIn(request)), member.email);
    return reply.redirect('/console/staff', 303);
  });
}
