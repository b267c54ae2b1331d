/** GET, POST and DELETE {api_base}/privacy/user/block: the caller's blocked users (docs/safety.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { blockUser, listBlockedUsers, unblockUser } from '../../../../domain/privacy/user/block.js';
import { blockedUserList } from '../../../../present/privacy/user/block.js';
import { requestParameters, requiredId } from '../../../body.js';
import { BLOCK_ERRORS } from '../../../errors.js';
import { requireCaller } from '../../../auth-hook.js';
import type { RouteDeps } from '../../../deps.js';
import { blockedUsersSchema, blockUserSchema, unblockUserSchema } from './block.schema.js';

export const userBlockRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const member = requireCaller('memberRoute', deps.auth);

  app.get('/privacy/user/block', { schema: blockedUsersSchema(deps), onRequest: member }, async (request) =>
    blockedUserList(await listBlockedUsers(deps.chatReads.repos, request.caller!.id)),
  );

  app.post('/privacy/user/block', { schema: blockUserSchema(deps), onRequest: member }, async (request) => {
    const userId = requiredId(requestParameters(request.query, request.body), 'user_id');
    await app.abuseLimits.blockChange(request.caller!);
    const result = await blockUser(deps.uow, request.caller!.id, userId);
    if (!result.ok) throw result.error === 'self' ? BLOCK_ERRORS.self() : BLOCK_ERRORS.userNotFound();
    // Every instance forgets who may type to whom (domain/chat/typing.ts).
    deps.live?.publish({ type: 'blocks.changed' });
    return blockedUserList(result.value);
  });

  app.delete('/privacy/user/block', { schema: unblockUserSchema(deps), onRequest: member }, async (request) => {
    const userId = requiredId(requestParameters(request.query, request.body), 'user_id');
    await app.abuseLimits.blockChange(request.caller!);
    const result = await unblockUser(deps.uow, request.caller!.id, userId);
    if (!result.ok) throw result.error === 'not_blocked' ? BLOCK_ERRORS.userNotBlocked() : BLOCK_ERRORS.userNotFound();
    deps.live?.publish({ type: 'blocks.changed' });
    return blockedUserList(result.value);
  });
};
