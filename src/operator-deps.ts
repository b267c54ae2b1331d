/**
 * The operator's use cases' needs (domain/operator/context.ts) from a store: one function that
 * both doors call, the CLI (`souk users disable`, ...) and the server (the server API's routes),
 * so that they do the same. Above the rooms, as server.ts: it joins the store, auth and the domain.
 */
import { randomUUID } from 'node:crypto';
import { issueToken } from './auth/jwt.js';
import { revokeEveryToken } from './auth/revoked-tokens.js';
import type { TokenKeys } from './auth/token-mac.js';
import type { OperatorDeps } from './domain/operator/context.js';
import { CATALOG_VERSION } from './domain/ports.js';
import { safetyRecordsOf } from './domain/user-data.js';
import type { MessageAttachment } from './domain/model.js';
import type { Store } from './store/index.js';

export interface OperatorDoor {
  /** The keys that sign tokens, as the servers have them. */
  tokenKeys(): Promise<TokenKeys> | TokenKeys;
  deleteFiles(attachments: readonly MessageAttachment[]): Promise<void>;
  tokenMaxTtlS: number;
  now?: () => number;
}

export function operatorDeps(store: Store, door: OperatorDoor): OperatorDeps {
  const devices = store.pushDevices;
  return {
    uow: store,
    repos: store.repos,
    reports: store.reports,
    audit: store.audit,
    safety: safetyRecordsOf(store, store.repos, store.reports),
    ...(devices ? { deviceTokens: (id: number) => devices.tokensOf(id) } : {}),
    ...(store.webhooks ? { webhooks: store.webhooks } : {}),
    ...(store.mailOutbox ? { mailOutbox: store.mailOutbox } : {}),
    ...(store.pushOutbox ? { pushOutbox: store.pushOutbox } : {}),
    ...(store.pusherOutbox ? { pusherOutbox: store.pusherOutbox } : {}),
    async closeSessions(userId, revoke) {
      if (revoke) await revokeEveryToken(store.revocations, userId, door.tokenMaxTtlS);
      await store.settings.set(CATALOG_VERSION, randomUUID());
    },
    deleteFiles: door.deleteFiles,
    async issueToken(user, ttlS) {
      const { token, exp } = issueToken(await door.tokenKeys(), user.id, user.login, ttlS);
      return { token, exp };
    },
    tokenMaxTtlS: door.tokenMaxTtlS,
    siteOwnsCatalog: store.dialect === 'mysql',
    now: door.now ?? Date.now,
  };
}
