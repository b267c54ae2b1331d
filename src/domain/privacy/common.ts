/**
 * What a block does (docs/safety.md, "Blocking"): the checks the chat's use cases make. When A has
 * blocked B, the chat between them is closed both ways, and nothing B does reaches A.
 */
import type { Listing } from '../model.js';
import type { Repositories } from '../ports.js';

/**
 * Whether either user has blocked the other: then neither may start a conversation with the
 * other or write in one, and nothing one does is delivered to the other (events, pushes,
 * webhooks, mail). Cheap for users who are party to no block (the store knows it with the
 * writer's lock on PostgreSQL).
 */
export const blockedEitherWay = (repos: Repositories, a: number, b: number): Promise<boolean> => repos.blocks.between(a, b);

/** Whether the caller may not start a conversation about the listing: they blocked it, its owner, or its owner them. */
export const startBlocked = (repos: Repositories, callerId: number, listing: Listing): Promise<boolean> =>
  repos.blocks.barsStart(callerId, listing.ownerId, listing.id);
