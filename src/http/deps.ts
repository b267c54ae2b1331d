import type { AuthDeps } from '../auth/authenticate.js';
import type { ChatLimits } from '../domain/chat.js';
import type { Presentation } from '../present/conversation.js';
import type { Store } from '../store/index.js';
import type { UserLookup } from '../store/user-cache.js';

/** What the routes are given: the store, the auth pipeline's needs, users, limits and presentation settings. */
export interface RouteDeps {
  store: Store;
  auth: AuthDeps;
  /** Users' profiles, cached until the catalog changes (store/user-cache.ts); also the auth's lookup. */
  findUser: UserLookup;
  limits: ChatLimits;
  /** Largest accepted request body in bytes (documented in the 413 response). */
  bodyLimit: number;
  presentation: Presentation;
}
