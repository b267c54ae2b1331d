/**
 * POST push-notification/register and POST push-notification/add-device (the plugin's two routes,
 * the same arguments, served alike): store the device's Expo push token, or its FCM registration
 * token where FCM is configured, for the caller. The pushes themselves are sent from the push
 * outbox (src/events/push.ts).
 *
 * The plugin's reply is not recorded; Souk answers what it stored: `{"push_token", "events"}`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { registerPushDevice, type RegisterDeviceError } from '../../domain/push.js';
import { requestParameters } from '../body.js';
import { badRequest, MESSAGES, noRoute, pushTokenTaken, type ApiError } from '../errors.js';
import { requireCaller } from '../auth-hook.js';
import type { RouteDeps } from '../deps.js';
import { registerDeviceSchema } from './push-notification.schema.js';

/**
 * `events` as WordPress reads an array argument: a list of strings, or one string of names
 * separated by commas or spaces (wp_parse_list); a form body's `events[]=a&events[]=b` too.
 * null and "" are absent (N2). undefined when it is none of these.
 */
function eventList(params: Record<string, unknown>): string[] | undefined {
  const value = params.events ?? params['events[]'];
  if (value === undefined || value === null || value === '') return [];
  if (typeof value === 'string') return value.split(/[\s,]+/);
  if (Array.isArray(value) && value.every((e) => typeof e === 'string')) return value;
  return undefined;
}

function registrationError(error: RegisterDeviceError, fcm: boolean): ApiError {
  if (error === 'taken') return pushTokenTaken();
  if (error === 'events') return badRequest(MESSAGES.pushEvents);
  return badRequest(fcm ? MESSAGES.pushTokenOrFcm : MESSAGES.pushToken);
}

export const pushNotificationRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const member = requireCaller('memberRoute', deps.auth);
  const routes = [
    ['/push-notification/register', 'registerPushDevice', "Register the device's push token"],
    ['/push-notification/add-device', 'addPushDevice', "Register the device's push token (the plugin's other name for it)"],
  ] as const;
  for (const [path, operationId, summary] of routes) {
    app.post(
      path,
      { schema: registerDeviceSchema({ bodyLimit: deps.bodyLimit }, operationId, summary), onRequest: member },
      async (request) => {
        // As GET my/events: a store without push, or push turned off, offers no such route.
        const push = deps.push;
        if (!push) throw noRoute();
        const params = requestParameters(request.query, request.body);
        const token = params.push_token;
        if (typeof token !== 'string') throw registrationError('push_token', push.fcm);
        const events = eventList(params);
        if (events === undefined) throw badRequest(MESSAGES.pushEvents);
        const session = request.callerToken!;
        const caller = { userId: request.caller!.id, session: session.digest, sessionExpiresAt: session.expiresAt };
        const result = await registerPushDevice(push.devices, caller, { token: token.trim(), events }, push, Date.now());
        if (!result.ok) throw registrationError(result.error, push.fcm);
        return { push_token: result.device.token, events: result.device.events };
      },
    );
  }
};
