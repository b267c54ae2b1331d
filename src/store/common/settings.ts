/** The settings table: generated secrets and switches shared by every instance. */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { SettingsRepository } from '../../domain/ports.js';

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
