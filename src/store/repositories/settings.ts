/** The settings table: generated secrets and switches shared by every instance. */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/**
 * Not a setting: a marker every catalog change (import, listing removal) sets anew, in the same
 * transaction. Servers poll it with the settings and drop the users they cached when it changes.
 */
export const CATALOG_VERSION = 'catalog_version';

export interface SettingsRepository {
  all(): Promise<Record<string, string>>;
  /** Stores value unless the key already has one; concurrent first starts agree on one value. */
  setIfAbsent(key: string, value: string): Promise<void>;
  set(key: string, value: string): Promise<void>;
}

export function settingsRepository(db: Kysely<Database>): SettingsRepository {
  return {
    async all() {
      const rows = await db.selectFrom('settings').select(['key', 'value']).execute();
      return Object.fromEntries(rows.map((r) => [r.key, r.value]));
    },
    async setIfAbsent(key, value) {
      await db
        .insertInto('settings')
        .values({ key, value, updated_at: Date.now() })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
    },
    async set(key, value) {
      const updated_at = Date.now();
      await db
        .insertInto('settings')
        .values({ key, value, updated_at })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at }))
        .execute();
    },
  };
}
