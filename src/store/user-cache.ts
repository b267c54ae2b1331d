/**
 * The auth pipeline looks up the token's user on every request. Users change rarely (an import),
 * so a looked-up user is reused for a short time: a user disabled by an import is refused within
 * that time, the same bound as for an API key rotated with the CLI.
 */
import type { User } from '../domain/model.js';

export function cachedUserLookup(
  find: (id: number) => Promise<User | undefined>,
  ttlMs: number,
  capacity = 10_000,
): (id: number) => Promise<User | undefined> {
  const entries = new Map<number, { user: User | undefined; until: number }>();
  return async (id) => {
    const now = Date.now();
    const hit = entries.get(id);
    if (hit && hit.until > now) return hit.user;
    const user = await find(id);
    entries.delete(id);
    entries.set(id, { user, until: now + ttlMs });
    // Oldest first in a Map: beyond capacity, forget the entry looked up longest ago.
    if (entries.size > capacity) entries.delete(entries.keys().next().value as number);
    return user;
  };
}
