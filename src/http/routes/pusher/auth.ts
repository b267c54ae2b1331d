/**
 * POST pusher/auth: pusher-js's channel authorization (`channelAuthorization`) for Souk's private
 * channels (PUSHER_CHANNELS=private, docs/pusher.md): the caller's own `private-chat-user-{id}`
 * only, signed with the app's secret by the `pusher` library.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { mayAuthorize } from '../../../domain/pusher.js';
import { requestParameters } from '../../body.js';
import { badRequest, MESSAGES, noRoute, pusherChannelForbidden } from '../../errors.js';
import { requireCaller } from '../../auth-hook.js';
import type { RouteDeps } from '../../deps.js';
import { pusherAuthSchema } from './auth.schema.js';

/** pusher-js's socket ids: two numbers joined by a dot. */
const SOCKET_ID = /^\d{1,20}\.\d{1,20}$/;

export const pusherAuthRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const member = requireCaller('memberRoute', deps.auth);
  app.post('/pusher/auth', { schema: pusherAuthSchema({ bodyLimit: deps.bodyLimit }), onRequest: member }, async (request) => {
    // Offered only where the events go to private channels and an app is set now.
    const pusher = deps.pusher?.current();
    if (!pusher) throw noRoute();
    const params = requestParameters(request.query, request.body);
    const { socket_id: socketId, channel_name: channel } = params;
    if (typeof socketId !== 'string' || !SOCKET_ID.test(socketId)) throw badRequest(MESSAGES.pusherSocketId);
    if (typeof channel !== 'string' || channel === '') throw badRequest(MESSAGES.pusherChannelName);
    if (!mayAuthorize(request.caller!.id, channel)) throw pusherChannelForbidden();
    return { auth: pusher.client.authorizeChannel(socketId, channel).auth };
  });
};
