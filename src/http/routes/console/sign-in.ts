/**
 * GET/POST /console/sign-in and POST /console/sign-out: a password and a TOTP code, throttled
 * as the app's sign-in is (POST login's budgets: per name and address, per account, per address,
 * LOGIN_FAILURES_*), and each failure counted as a failed authentication of the address
 * (RATE_LIMIT_AUTH_FAILURES); over either, 429 before any password is checked. A code is taken once.
 *
 * On a WordPress site its administrators sign in with their login or e-mail and the site's password;
 * the first time, they enrol Souk's TOTP (GET/POST /console/enrol), which every later sign-in asks.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { burnStaffVerification, newTotpSecret, totpQr, totpStep, totpUri, verifyStaffPassword } from '../../../auth/staff.js';
import { enrolSiteAdmin } from '../../../domain/staff/members.js';
import { ENROL_TTL_MS, isSetUp, isSiteAdmin, staffEmail, type StaffMember } from '../../../domain/staff/staff.js';
import { SESSION_KEY } from '../../plugins/console.js';
import { field, type ConsoleDeps } from './common.js';

const FAILED = 'The e-mail, password or code is wrong.';

function signIn(request: FastifyRequest, reply: FastifyReply, deps: ConsoleDeps, member: StaffMember) {
  // A new session: nothing of the one before sign-in (its CSRF secret included) carries over.
  request.session.regenerate();
  const now = deps.now();
  request.session.set(SESSION_KEY, { staffId: member.id, signedInAt: now, lastSeenAt: now });
  return reply.redirect('/console/reports', 303);
}

export async function consoleSignInRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  app.get('/sign-in', (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const notice = query.expired ? 'Your session ended: sign in again.' : query.ready ? 'Your account is ready: sign in.' : undefined;
    return reply.page('sign-in', { title: 'Sign in', notice, site: deps.siteAdmins !== undefined });
  });

  app.post('/sign-in', async (request, reply) => {
    const limits = request.server.rateLimits;
    await limits.checkAddress(request.ip);
    await limits.checkSignIn(request.ip);
    const given = field(request.body, 'email').trim();
    const email = staffEmail(given);
    const password = field(request.body, 'password');
    const code = field(request.body, 'code').replace(/\s+/g, '');
    // Budgets of their own: a member's name is not an app user's.
    const attempt = await limits.admitSignIn(request.ip, `console:${email}`);
    const named = email === '' || email.includes('\u0000') ? undefined : await deps.staff.findByEmail(email);
    let member: StaffMember | undefined;
    let step: number | null = null;
    if (named && isSetUp(named) && !isSiteAdmin(named)) {
      if (await verifyStaffPassword(password, named.passwordHash!)) [member, step] = [named, totpStep(named.totpSecret!, code, deps.now())];
    } else if (deps.siteAdmins && (!named || isSiteAdmin(named)) && given !== '' && !given.includes('\u0000')) {
      // The site's administrator: their password is the site's, checked against its hash now.
      const admin = await deps.siteAdmins.find(given);
      if (!admin) await burnStaffVerification(password);
      else if (await deps.siteAdmins.verify(password, admin.passwordHash)) {
        const own = await deps.staff.findByEmail(admin.email);
        if (!own || !isSetUp(own)) {
          await attempt.succeeded();
          request.session.set('pendingSiteAdmin', { email: admin.email, at: deps.now() });
          request.session.set('pendingTotp', undefined);
          return reply.redirect('/console/enrol', 303);
        }
        if (isSiteAdmin(own)) [member, step] = [own, totpStep(own.totpSecret!, code, deps.now())];
      }
    } else await burnStaffVerification(password);
    if (!member || step === null || !(await deps.staff.takeTotpStep(member.id, step))) {
      await limits.authFailed(request.ip);
      return reply.page('sign-in', { title: 'Sign in', error: FAILED, email: given, site: deps.siteAdmins !== undefined }, 401);
    }
    await attempt.succeeded();
    return signIn(request, reply, deps, member);
  });

  /** The site administrator's TOTP enrolment, right after their password was taken. */
  async function enrolment(request: FastifyRequest, reply: FastifyReply, error?: string) {
    const pending = request.session.get('pendingSiteAdmin');
    if (!pending || deps.now() - pending.at > ENROL_TTL_MS) {
      request.session.set('pendingSiteAdmin', undefined);
      return reply.redirect('/console/sign-in?expired=1', 303);
    }
    let secret = request.session.get('pendingTotp');
    if (!secret) {
      secret = newTotpSecret();
      request.session.set('pendingTotp', secret);
    }
    const qr = await totpQr(totpUri(secret, pending.email));
    return reply.page('enrol', { title: 'Add your second factor', email: pending.email, secret, qr, error }, error ? 400 : 200);
  }

  app.get('/enrol', (request, reply) => {
    if (!deps.siteAdmins) return reply.page('error', { title: 'Not found', message: 'There is no such page.' }, 404);
    return enrolment(request, reply);
  });

  app.post('/enrol', async (request, reply) => {
    if (!deps.siteAdmins) return reply.page('error', { title: 'Not found', message: 'There is no such page.' }, 404);
    const pending = request.session.get('pendingSiteAdmin');
    const secret = request.session.get('pendingTotp');
    if (!pending || !secret || deps.now() - pending.at > ENROL_TTL_MS) return enrolment(request, reply);
    const step = totpStep(secret, field(request.body, 'code').replace(/\s+/g, ''), deps.now());
    if (step === null) return enrolment(request, reply, 'code is not the one your authenticator app shows now');
    const member = await enrolSiteAdmin({ staff: deps.staff, audit: deps.operator.audit, now: deps.now }, pending.email, secret);
    if (!member) return reply.page('error', { title: 'Not enrolled', message: 'A staff member of Souk has this e-mail already.' }, 409);
    await deps.staff.takeTotpStep(member.id, step);
    return signIn(request, reply, deps, member);
  });
}

/** Inside the signed-in scope: the form carries the session's CSRF token. */
export async function consoleSignOutRoutes(app: FastifyInstance): Promise<void> {
  app.post('/sign-out', (request, reply) => {
    request.session.delete();
    return reply.redirect('/console/sign-in', 303);
  });
}
