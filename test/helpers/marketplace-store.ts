/** A migrated store of the fixtures' marketplace on a fresh database (SQLite, or PostgreSQL when TEST_DATABASE_URL says so). */
import type { TestContext } from 'node:test';
import type { Store } from '../../src/store/index.js';
import { freshDatabase } from './database.js';
import { openMarketplaceStore } from './store.js';

const OPTIONS = { poolSize: 4, statementTimeoutMs: 5000, connectTimeoutMs: 5000 };

export async function marketplaceStore(t: TestContext): Promise<Store> {
  const database = await freshDatabase();
  const store = await openMarketplaceStore(database.url, OPTIONS);
  t.after(async () => {
    await store.close();
    await database.drop();
  });
  return store;
}
