/** GET and PUT my/notifications: the caller's choice of mail when a message waits (docs/mail.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notificationSettings, setEmailNotifications } from '../../../domain/mail.js';
import { badRequest, noRoute, notificationsEmailMessage } from '../../errors.js';
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

export const notificationRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const member = requireCaller('memberRoute', deps.auth);
  app.get('/my/notifications', { schema: notificationsSchema({ bodyLimit: deps.bodyLimit }), onRequest: member }, async (request) => {
    // As push: a store that keeps no choices offers no such route.
    if (!deps.mail) throw noRoute();
    return notificationSettings(deps.mail.preferences, request.caller!.id);
  });
  app.put('/my/notifications', { schema: setNotificationsSchema({ bodyLimit: deps.bodyLimit }), onRequest: member }, async (request) => {
    if (!deps.mail) throw noRoute();
    const email = booleanOf((request.body as Record<string, unknown> | null)?.email);
    if (email === undefined) throw badRequest(notificationsEmailMessage);
    return setEmailNotifications(deps.mail.preferences, request.caller!.id, email);
  });
};
