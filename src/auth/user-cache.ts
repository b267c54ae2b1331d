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
  /** The most users kept (USER_CACHE_SIZE); 0 keeps none. */
  capacity: number,
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

/**
 * Users by login, for the tokens a WordPress site issued (ACCEPT_WORDPRESS_TOKENS): the login's id
 * is remembered until the catalog version changes, and the user itself comes from `findUser` (and
 * its cache). The login must be the user's own (compared without case, as the site's collation
 * does), not another user's e-mail address that reads the same.
 */
export function cachedLoginLookup(
  findForSignIn: (login: string) => Promise<{ user: User } | undefined>,
  findUser: UserLookup,
  catalogVersion: () => string,
  capacity: number,
): (login: string) => Promise<User | undefined> {
  const ids = new Map<string, number | undefined>();
  let cachedVersion = catalogVersion();
  return async (login) => {
    const version = catalogVersion();
    if (version !== cachedVersion) {
      ids.clear();
      cachedVersion = version;
    }
    let id = ids.get(login);
    if (!ids.has(login)) {
      const found = await findForSignIn(login);
      id = found && found.user.login.toLowerCase() === login.toLowerCase() ? found.user.id : undefined;
      if (catalogVersion() === version) {
        ids.set(login, id);
        if (ids.size > capacity) ids.delete(ids.keys().next().value as string);
      }
    }
    return id === undefined ? undefined : findUser(id);
  };
}
