/**
 * GET/POST /console/setup/{token}: the one-time set-up link `souk staff add` printed. The member
 * chooses a password and enrols a TOTP second factor: the secret is shown once (a QR code and its
 * text), kept in the sealed session until a code from it is typed, then stored with the password's
 * argon2id hash; the link is used up.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hashStaffPassword, newTotpSecret, SETUP_TOKEN, setupDigest, totpQr, totpStep, totpUri } from '../../../auth/staff.js';
import { MAX_PASSWORD_BYTES } from '../../../auth/passwords.js';
import { setupState, STAFF_PASSWORD_MIN, type StaffMember } from '../../../domain/staff/staff.js';
import { field, type ConsoleDeps } from './common.js';

type SetupRequest = FastifyRequest<{ Params: { token: string } }>;

export async function consoleSetupRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  /** The member the link names while it is good; else the page saying why, and undefined. */
  async function linked(request: SetupRequest, reply: FastifyReply): Promise<{ member: StaffMember; digest: string } | undefined> {
    const token = request.params.token;
    const digest = SETUP_TOKEN.test(token) ? setupDigest(token) : '';
    const member = digest ? await deps.staff.findBySetupDigest(digest) : undefined;
    const state = setupState(member, deps.now());
    if (state === 'valid') return { member: member!, digest };
    if (state === 'expired')
      reply.page(
        'error',
        { title: 'Link expired', message: 'This set-up link has expired. Ask an owner for a new one (souk staff reset).' },
        410,
      );
    else reply.page('error', { title: 'Link not valid', message: 'This set-up link is not valid: it was used already or replaced.' }, 404);
    return undefined;
  }

  async function form(request: SetupRequest, reply: FastifyReply, member: StaffMember, error?: string) {
    let secret = request.session.get('pendingTotp');
    if (!secret) {
      secret = newTotpSecret();
      request.session.set('pendingTotp', secret);
    }
    const uri = totpUri(secret, member.email);
    return reply.page(
      'setup',
      { title: 'Set up your account', email: member.email, secret, qr: await totpQr(uri), error, min: STAFF_PASSWORD_MIN },
      error ? 400 : 200,
    );
  }

  app.get('/setup/:token', async (request: SetupRequest, reply) => {
    const found = await linked(request, reply);
    if (!found) return reply;
    // A fresh secret each time the page is opened: it is shown once.
    request.session.set('pendingTotp', undefined);
    return form(request, reply, found.member);
  });

  app.post('/setup/:token', async (request: SetupRequest, reply) => {
    await request.server.rateLimits.checkAddress(request.ip);
    const found = await linked(request, reply);
    if (!found) return reply;
    const password = field(request.body, 'password');
    const again = field(request.body, 'password_again');
    const code = field(request.body, 'code').replace(/\s+/g, '');
    const secret = request.session.get('pendingTotp');
    if ([...password].length < STAFF_PASSWORD_MIN)
      return form(request, reply, found.member, `password must be at least ${STAFF_PASSWORD_MIN} characters`);
    if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES)
      return form(request, reply, found.member, `password must be at most ${MAX_PASSWORD_BYTES} bytes`);
    if (password !== again) return form(request, reply, found.member, 'password_again must repeat the password');
    const step = secret ? totpStep(secret, code, deps.now()) : null;
    if (!secret || step === null) return form(request, reply, found.member, 'code is not the one your authenticator app shows now');
    const done = await deps.staff.completeSetup(found.member.id, found.digest, await hashStaffPassword(password), secret, deps.now());
    if (!done) return reply.page('error', { title: 'Link not valid', message: 'This set-up link was used or expired meanwhile.' }, 409);
    // The code just typed is taken: it cannot sign in as well.
    await deps.staff.takeTotpStep(found.member.id, step);
    request.session.set('pendingTotp', undefined);
    return reply.redirect('/console/sign-in?ready=1', 303);
  });
}
