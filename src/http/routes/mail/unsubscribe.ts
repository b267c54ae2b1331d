/**
 * GET and POST mail/unsubscribe?user=ID&sig=SIG: the one-click unsubscribe link of a mail (RFC
 * 8058). The POST turns the link's user's mail off; the GET, what a person who clicks the link in
 * a browser sees (and what a mail scanner fetches), only shows a button that POSTs.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { validUnsubscribe } from '../../../auth/mail-unsubscribe.js';
import { setEmailNotifications } from '../../../domain/mail.js';
import { invalidUnsubscribeLink, noRoute } from '../../errors.js';
import type { RouteDeps } from '../../deps.js';
import { unsubscribePageSchema, unsubscribeSchema } from './unsubscribe.schema.js';

const page = (body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Unsubscribe</title></head><body>${body}</body></html>`;

export const unsubscribeRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  /** The link's user, when its signature holds. */
  const userOf = (query: { user?: string; sig?: string }): number => {
    const mail = deps.mail;
    if (!mail) throw noRoute();
    const id = /^[1-9]\d{0,15}$/.test(query.user ?? '') ? Number(query.user) : NaN;
    if (!Number.isSafeInteger(id) || !validUnsubscribe(id, query.sig ?? '', mail.unsubscribeKey)) throw invalidUnsubscribeLink();
    return id;
  };

  app.get('/mail/unsubscribe', { schema: unsubscribePageSchema({ bodyLimit: deps.bodyLimit }) }, async (request, reply) => {
    userOf(request.query);
    const action = `?user=${encodeURIComponent(request.query.user!)}&sig=${encodeURIComponent(request.query.sig!)}`;
    const form = `<form method="post" action="${action}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><p>Stop the e-mails about messages waiting for you?</p><button type="submit">Unsubscribe</button></form>`;
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page(form));
  });

  app.post('/mail/unsubscribe', { schema: unsubscribeSchema({ bodyLimit: deps.bodyLimit }) }, async (request, reply) => {
    const userId = userOf(request.query);
    await setEmailNotifications(deps.mail!.preferences, userId, false);
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(page('<p>You will no longer get e-mails about messages waiting for you. The app can turn them on again.</p>'));
  });
};
