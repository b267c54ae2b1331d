/** GET, POST and DELETE {api_base}/privacy/listing/block: the caller's blocked listings (docs/safety.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { blockListing, listBlockedListings, unblockListing } from '../../../../domain/privacy/listing/block.js';
import { blockedListingList } from '../../../../present/privacy/listing/block.js';
import { requestParameters, requiredId } from '../../../body.js';
import { BLOCK_ERRORS } from '../../../errors.js';
import { requireCaller } from '../../../auth-hook.js';
import type { RouteDeps } from '../../../deps.js';
import { blockedListingsSchema, blockListingSchema, unblockListingSchema } from './block.schema.js';

export const listingBlockRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const member = requireCaller('memberRoute', deps.auth);

  app.get('/privacy/listing/block', { schema: blockedListingsSchema(deps), onRequest: member }, async (request) =>
    blockedListingList(await listBlockedListings(deps.chatReads.repos, request.caller!.id)),
  );

  app.post('/privacy/listing/block', { schema: blockListingSchema(deps), onRequest: member }, async (request) => {
    const listingId = requiredId(requestParameters(request.query, request.body), 'listing_id');
    await app.abuseLimits.blockChange(request.caller!);
    const result = await blockListing(deps.uow, request.caller!.id, listingId);
    if (!result.ok) throw result.error === 'own_listing' ? BLOCK_ERRORS.ownListing() : BLOCK_ERRORS.listingNotFound();
    return blockedListingList(result.value);
  });

  app.delete('/privacy/listing/block', { schema: unblockListingSchema(deps), onRequest: member }, async (request) => {
    const listingId = requiredId(requestParameters(request.query, request.body), 'listing_id');
    await app.abuseLimits.blockChange(request.caller!);
    const result = await unblockListing(deps.uow, request.caller!.id, listingId);
    if (!result.ok) throw result.error === 'not_blocked' ? BLOCK_ERRORS.listingNotBlocked() : BLOCK_ERRORS.listingNotFound();
    return blockedListingList(result.value);
  });
};
