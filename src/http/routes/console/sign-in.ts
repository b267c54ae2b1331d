/**
 * GET/POST /console/sign-in and POST /console/sign-out: a password and a TOTP code, throttled
 * as the app's sign-in is (POST login's budgets: per name and address, per account, per address,
 * LOGIN_FAILURES_*), and each failure counted as a failed authentication of the address
 * (RATE_LIMIT_AUTH_FAILURES); over either, 429 before any password is checked. A code is taken once.
 */
import type { FastifyInstance } from 'fastify';
import { burnStaffVerification, totpStep, verifyStaffPassword } from '../../../auth/staff.js';
import { isSetUp, staffEmail } from '../../../domain/staff/staff.js';
import { SESSION_KEY } from '../../plugins/console.js';
import { field, type ConsoleDeps } from './common.js';

const FAILED = 'The e-mail, password or code is wrong.';

export async function consoleSignInRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  app.get('/sign-in', (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const notice = query.expired ? 'Your session ended: sign in again.' : query.ready ? 'Your account is ready: sign in.' : undefined;
    return reply.page('sign-in', { title: 'Sign in', notice });
  });

  app.post('/sign-in', async (request, reply) => {
    const limits = request.server.rateLimits;
    await limits.checkAddress(request.ip);
    await limits.checkSignIn(request.ip);
    const email = staffEmail(field(request.body, 'email'));
    const password = field(request.body, 'password');
    const code = field(request.body, 'code').replace(/\s+/g, '');
    // Budgets of their own: a member's name is not an app user's.
    const attempt = await limits.admitSignIn(request.ip, `console:${email}`);
    const member = email === '' || email.includes('\u0000') ? undefined : await deps.staff.findByEmail(email);
    let step: number | null = null;
    if (!member || !isSetUp(member)) await burnStaffVerification(password);
    else if (await verifyStaffPassword(password, member.passwordHash!)) step = totpStep(member.totpSecret!, code, deps.now());
    if (!member || step === null || !(await deps.staff.takeTotpStep(member.id, step))) {
      await limits.authFailed(request.ip);
      return reply.page('sign-in', { title: 'Sign in', error: FAILED, email }, 401);
    }
    await attempt.succeeded();
    // A new session: nothing of the one before sign-in (its CSRF secret included) carries over.
    request.session.regenerate();
    const now = deps.now();
    request.session.set(SESSION_KEY, { staffId: member.id, signedInAt: now, lastSeenAt: now });
    return reply.redirect('/console/reports', 303);
  });
}

/** Inside the signed-in scope: the form carries the session's CSRF token. */
export async function consoleSignOutRoutes(app: FastifyInstance): Promise<void> {
  app.post('/sign-out', (request, reply) => {
    request.session.delete();
    return reply.redirect('/console/sign-in', 303);
  });
}
