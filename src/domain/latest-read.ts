/**
 * A value polled from the database and also read again on demand (after a change, by a test or the
 * console): two reads may overlap, and the one that started first may finish last. Its older
 * snapshot must not overwrite the newer one, or a change just made (a bad word added, a server key
 * revoked) would be undone until the next poll. `latestRead` applies a read's value only when no read
 * started after it has been applied already.
 */
export function latestRead<T>(read: () => Promise<T>, apply: (value: T) => void): () => Promise<void> {
  let started = 0;
  let applied = 0;
  return async () => {
    const ticket = ++started;
    const value = await read();
    if (ticket < applied) return;
    applied = ticket;
    apply(value);
  };
}
