/** GET my/chat/presence: whether the users the caller chats with are online (domain/chat/presence.ts). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { chatPresence, PRESENCE_USERS_MAX } from '../../../../domain/chat/presence.js';
import { badRequest, noRoute, presenceUserIdsMessage } from '../../../errors.js';
import { requireCaller } from '../../../auth-hook.js';
import type { RouteDeps } from '../../../deps.js';
import { presenceSchema } from './presence.schema.js';

/** `1,2,3` as ids; undefined when it is not such a list of 1 to PRESENCE_USERS_MAX. */
function userIdsOf(value: unknown): number[] | undefined {
  if (typeof value !== 'string') return undefined;
  const parts = value.split(',').map((p) => p.trim());
  if (parts.length > PRESENCE_USERS_MAX || !parts.every((p) => /^[1-9][0-9]{0,15}$/.test(p))) return undefined;
  const ids = parts.map(Number);
  return ids.every(Number.isSafeInteger) ? ids : undefined;
}

export const chatPresenceRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.get(
    '/my/chat/presence',
    { schema: presenceSchema({ bodyLimit: deps.bodyLimit }), onRequest: requireCaller('memberRoute', deps.auth) },
    async (request) => {
      if (!deps.presence) throw noRoute();
      const userIds = userIdsOf((request.query as Record<string, unknown>).user_ids);
      if (userIds === undefined) throw badRequest(presenceUserIdsMessage);
      const entries = await chatPresence(
        { ...deps.presence, repos: deps.chatReads.repos, findUser: deps.findUser },
        request.caller!.id,
        userIds,
        Date.now(),
      );
      const { formatTime } = deps.presentation;
      return entries.map((e) => ({ user_id: e.userId, online: e.online, last_seen: e.lastSeen === null ? null : formatTime(e.lastSeen) }));
    },
  );
};
