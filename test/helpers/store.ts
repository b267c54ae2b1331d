/** A store of the fixtures' marketplace (fixtures.ts), migrated and imported: for tests of the store itself. */
import assert from 'node:assert/strict';
import { importCatalog } from '../../src/domain/catalog.js';
import { parseImportDocument } from '../../src/cli/import-document.js';
import { openStore, type Store } from '../../src/store/index.js';
import type { DbOptions } from '../../src/store/index.js';
import type { ChatStore } from '../../src/domain/chat/conversation.js';
import { marketplace } from './fixtures.js';

export async function openMarketplaceStore(url: string, options: DbOptions): Promise<Store> {
  const store = openStore(url, options);
  await store.migrate();
  const parsed = parseImportDocument(marketplace());
  assert.ok(parsed.ok);
  assert.ok((await importCatalog(store, parsed.catalog)).ok);
  return store;
}

/** The chat use cases' store without a user cache: each user is read from `store`, in the use case's transaction. */
export function uncachedChat(store: Store): ChatStore {
  return { uow: store, findUser: (id, load) => load(id) };
}
