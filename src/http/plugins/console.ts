/**
 * The staff console's scope (docs/console.md): everything under /console. Server-rendered pages
 * (eta, escaping by default), htmx served from Souk's own installed package and a stylesheet of its
 * own, no CDN and no build step; headers by @fastify/helmet with a strict Content-Security-Policy
 * (no inline script, no eval, no other origin); a sealed session cookie (@fastify/secure-session,
 * its key generated per installation) that is SameSite=Strict, HttpOnly and Secure when the
 * request came over TLS (as TRUST_PROXY lets Fastify see it); a CSRF token on every form
 * (@fastify/csrf-protection: a POST without a valid one is refused 403).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet from '@fastify/helmet';
import secureSession from '@fastify/secure-session';
import csrf from '@fastify/csrf-protection';
import { Eta } from 'eta';
import { sessionHolds, type StaffSession } from '../../domain/staff/staff.js';
import type { ConsoleDeps } from '../routes/console/common.js';

/** The views and the stylesheet: src/http/console/, found alike from src/ (tsx) and dist/ (the build). */
const HOME = fileURLToPath(new URL('../../../src/http/console/', import.meta.url));

const CSP = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'none'"],
    baseUri: ["'none'"],
    connectSrc: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    // The TOTP QR code is an SVG data URL.
    imgSrc: ["'self'", 'data:'],
    scriptSrc: ["'self'"],
    scriptSrcAttr: ["'none'"],
    styleSrc: ["'self'"],
  },
};

const assets = () => {
  const require = createRequire(import.meta.url);
  return {
    'htmx.min.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(require.resolve('htmx.org/dist/htmx.min.js')) },
    'console.css': { type: 'text/css; charset=utf-8', body: readFileSync(`${HOME}console.css`) },
    'console.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(`${HOME}console.js`) },
  } as Record<string, { type: string; body: Buffer }>;
};

export const SESSION_KEY = 'member';

/** A time as the pages show it: UTC, which console.js rewrites in the reader's own zone. */
const timeElement = (ms: number) => {
  const iso = new Date(ms).toISOString();
  return `<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
};

declare module '@fastify/secure-session' {
  interface SessionData {
    /** Who is signed in. */
    member: StaffSession;
    /** The TOTP secret the set-up page showed, until the member confirms it with a code. */
    pendingTotp: string;
    /** A site administrator whose password was taken, until they enrol TOTP: their e-mail, and when. */
    pendingSiteAdmin: { email: string; at: number };
    /** The CSRF secret. */
    _csrf: string;
  }
}

/** A route file's plugin; those given as `signedIn` find `request.staff` set (else the sign-in answers). */
export type ConsoleRoutes = (scope: FastifyInstance, deps: ConsoleDeps) => Promise<void>;

export async function consoleScope(app: FastifyInstance, options: { deps: ConsoleDeps; open: ConsoleRoutes[]; signedIn: ConsoleRoutes[] }) {
  const { deps } = options;
  const eta = new Eta({ views: `${HOME}views`, cache: true, autoEscape: true, autoTrim: false });
  const files = assets();
  // Pages, not the interface: out of the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });

  await app.register(helmet, {
    contentSecurityPolicy: CSP,
    // The console is reached over plain HTTP on a private network too; TLS is the proxy's to insist on.
    strictTransportSecurity: false,
    referrerPolicy: { policy: 'no-referrer' },
  });
  await app.register(secureSession, {
    key: deps.sessionKey,
    cookieName: 'souk_console',
    expiry: 12 * 3600,
    cookie: { path: '/console', httpOnly: true, sameSite: 'strict', secure: 'auto' },
  });
  await app.register(csrf, { sessionPlugin: '@fastify/secure-session' });

  app.decorateRequest('staff', null);
  app.decorateReply('page', function (this: FastifyReply, name: string, data: Record<string, unknown> = {}, status = 200) {
    const request = this.request;
    // An error answered before the session was read has no form to protect.
    const csrfToken = request.session ? this.generateCsrf() : '';
    const body = eta.render(`./${name}`, { ...data, csrfToken, member: request.staff, path: request.url, time: timeElement });
    return this.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(body);
  });

  // Every POST carries the form's token (a stale one, from another session, is refused too).
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method === 'POST') app.csrfProtection(request, reply, done);
    else done();
  });

  app.setErrorHandler((err: FastifyError & { headers?: Record<string, string> }, request, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (status >= 500) request.log.error({ err }, 'console request failed');
    for (const [name, value] of Object.entries(err.headers ?? {})) reply.header(name, value);
    const message =
      status === 403
        ? 'The form has expired or did not come from this console. Go back, reload the page and try again.'
        : status === 429
          ? 'Too many failed attempts from your address. Wait a little and try again.'
          : status >= 500
            ? 'Something went wrong on the server.'
            : 'The request could not be read.';
    return reply.page('error', { title: status === 403 ? 'Refused' : 'Error', message }, status);
  });
  app.setNotFoundHandler((_request, reply) => reply.page('error', { title: 'Not found', message: 'There is no such page.' }, 404));

  app.get('/assets/:name', (request: FastifyRequest<{ Params: { name: string } }>, reply) => {
    const file = Object.hasOwn(files, request.params.name) ? files[request.params.name] : undefined;
    if (!file) return reply.code(404).type('text/plain').send('not found');
    return reply.type(file.type).header('cache-control', 'public, max-age=3600').send(file.body);
  });

  for (const routes of options.open) await routes(app, deps);

  await app.register(async (scope) => {
    scope.addHook('preHandler', async (request, reply) => {
      const session = request.session.get(SESSION_KEY);
      const now = deps.now();
      const member = session ? await deps.staff.findById(session.staffId) : undefined;
      if (!session || !sessionHolds(session, member, now, deps.idleTimeoutMs)) {
        if (session) request.session.set(SESSION_KEY, undefined);
        return reply.redirect(session ? '/console/sign-in?expired=1' : '/console/sign-in', 303);
      }
      request.session.set(SESSION_KEY, { ...session, lastSeenAt: now });
      request.staff = member!;
    });
    for (const routes of options.signedIn) await routes(scope, deps);
  });
}
