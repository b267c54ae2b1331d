/**
 * Server keys (docs/server-api.md): the credentials of a marketplace's own back end on the server
 * API. Each is named; the store keeps the digest of the key (auth/server-keys.ts makes both), never
 * the key, which is shown once when made.
 */

/** A server key as `souk server-keys list` shows it. */
export interface ServerKey {
  name: string;
  createdAt: number;
  /** When a request last used it (recorded at most once a minute per instance); null: never. */
  lastUsedAt: number | null;
}

/** A key that may be used: its name and its digest, to compare a presented key's digest with. */
export interface ActiveServerKey {
  name: string;
  digest: string;
}

export interface ServerKeyRepository {
  /** Stores a new key; false, storing nothing, when the name is taken. */
  add(name: string, digest: string, at: number): Promise<boolean>;
  /** Every key, by name. */
  list(): Promise<ServerKey[]>;
  /** Every key's name and digest: what the servers compare with. */
  active(): Promise<ActiveServerKey[]>;
  /** Deletes the key (revoked); false when there was none of that name. */
  remove(name: string): Promise<boolean>;
  /** Records that the key was used at `at`. */
  used(name: string, at: number): Promise<void>;
}

/** A key's name: letters, digits, `.`, `_` and `-`, at most 100 (it names the key in the audit log). */
export const SERVER_KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
