/**
 * The auth pipeline looks up the token's user on every request, and a conversation start its
 * listing's owner. Users change only through the catalog (an import), so a looked-up user is
 * reused until the catalog version changes: a user disabled by an import is refused once the
 * settings poll sees the new version, within SETTINGS_REFRESH_MS, the same bound as for an API
 * key rotated with the CLI.
 */
import type { User } from '../domain/model.js';

/**
 * A user, from the cache or else read by `load` (by default the lookup the cache was made with);
 * a caller inside a transaction passes the transaction's own lookup.
 */
export type UserLookup = (id: number, load?: (id: number) => Promise<User | undefined>) => Promise<User | undefined>;

export function cachedUserLookup(
  find: (id: number) => Promise<User | undefined>,
  catalogVersion: () => string,
  capacity = 20_000,
): UserLookup {
  const entries = new Map<number, User | undefined>();
  let cachedVersion = catalogVersion();
  return async (id, load = find) => {
    const version = catalogVersion();
    if (version !== cachedVersion) {
      entries.clear();
      cachedVersion = version;
    }
    if (entries.has(id)) return entries.get(id);
    const user = await load(id);
    // A lookup that started before the version changed may hold the old user: not kept.
    if (catalogVersion() !== version) return user;
    entries.set(id, user);
    // Oldest first in a Map: beyond capacity, forget the entry looked up longest ago.
    if (entries.size > capacity) entries.delete(entries.keys().next().value as number);
    return user;
  };
}
