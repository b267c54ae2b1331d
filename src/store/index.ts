/**
 * The store: opens the database DATABASE_URL names, one folder per database (sqlite/, postgres/,
 * mysql/: a WordPress site's own tables),
 * each implementing every port of the domain with its own statements; what they share is in
 * common/. Adding a database is one folder beside them and one line here. The rest of Souk sees
 * no SQL.
 */
import { databaseUnusable } from './database-errors.js';
import { openMysqlStore } from './mysql/index.js';
import { openPostgresStore } from './postgres/index.js';
import type { DbOptions, Store } from './common/store.js';
import { openSqliteStore } from './sqlite/index.js';

export { DatabaseUnusable } from './database-errors.js';
export type { DbOptions, LoosePermission, Store, StoreKind } from './common/store.js';

/**
 * Opens the store and brings its tables up to date, the first thing every way into Souk does. A
 * failure of either names the database (`shown`: its URL with the password masked) and what to
 * check (database-errors.ts).
 */
export async function openMigratedStore(url: string, opts: DbOptions, shown: string): Promise<Store> {
  let store: Store;
  try {
    store = openStore(url, opts);
  } catch (err) {
    throw databaseUnusable(url, shown, err);
  }
  try {
    await store.migrate();
    return store;
  } catch (err) {
    await store.close().catch(() => {});
    throw databaseUnusable(url, shown, err);
  }
}

export function openStore(url: string, opts: DbOptions): Store {
  if (url.startsWith('sqlite:')) return openSqliteStore(url, opts);
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgresStore(url, opts);
  if (url.startsWith('mysql://')) return openMysqlStore(url, opts);
  throw new Error(`DATABASE_URL must start with sqlite:, postgres:// or mysql://, got ${url.split(':', 1)[0]}:`);
}
