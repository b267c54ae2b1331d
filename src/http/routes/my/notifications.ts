/**
 * GET and PUT my/notifications: the caller's choice of mail when a message waits (docs/mail.md),
 * and whether others see their presence (docs/events.md, "Typing and presence").
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notificationSettings, setNotificationSettings } from '../../../domain/mail.js';
import { badRequest, noRoute, notificationsEmailMessage, notificationsShowPresenceMessage } from '../../errors.js';
import { requireCaller } from '../../auth-hook.js';
import type { RouteDeps } from '../../deps.js';
import { notificationsSchema, setNotificationsSchema } from './notifications.schema.js';

/** A JSON boolean, or a form body's word for one; undefined for anything else. */
function booleanOf(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return undefined;
}

const wire = (s: { email: boolean; showPresence: boolean }) => ({ email: s.email, show_presence: s.showPresence });

export const notificationRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const member = requireCaller('memberRoute', deps.auth);
  app.get('/my/notifications', { schema: notificationsSchema({ bodyLimit: deps.bodyLimit }), onRequest: member }, async (request) => {
    // As push: a store that keeps no choices offers no such route.
    if (!deps.mail) throw noRoute();
    return wire(await notificationSettings(deps.mail.preferences, request.caller!.id));
  });
  app.put('/my/notifications', { schema: setNotificationsSchema({ bodyLimit: deps.bodyLimit }), onRequest: member }, async (request) => {
    if (!deps.mail) throw noRoute();
    const body = (request.body as Record<string, unknown> | null) ?? {};
    const email = booleanOf(body.email);
    const showPresence = booleanOf(body.show_presence);
    // Either may come alone; one given must be a boolean, and a body with neither asks for `email` as before.
    if (body.show_presence !== undefined && showPresence === undefined) throw badRequest(notificationsShowPresenceMessage);
    if ((body.email !== undefined || showPresence === undefined) && email === undefined) throw badRequest(notificationsEmailMessage);
    return wire(await setNotificationSettings(deps.mail.preferences, request.caller!.id, { email, showPresence }));
  });
};
