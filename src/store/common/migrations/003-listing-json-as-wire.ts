import type { Kysely } from 'kysely';
import { imagesJson, termsJson } from '../media-json.js';

const CHUNK = 1000;

/** The interface's JSON for a stored array, or the text unchanged when it does not fit the schema. */
function asWire(text: string, serialise: (value: never) => string): string {
  try {
    return serialise(JSON.parse(text) as never);
  } catch {
    return text;
  }
}

/**
 * Rewrites each listing's images, category and location as the interface's own JSON
 * (store/common/media-json.ts), which replies now carry as stored. Rows from before were plain
 * JSON.stringify of the imported objects: the same data, but keys in the import document's order.
 */
export const listingJsonAsWireMigration = {
  async up(db: Kysely<any>): Promise<void> {
    for (let after = Number.MIN_SAFE_INTEGER; ;) {
      const rows = await db
        .selectFrom('listings')
        .select(['id', 'images', 'category', 'location'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(CHUNK)
        .execute();
      for (const row of rows) {
        const wire = {
          images: asWire(row.images, imagesJson),
          category: asWire(row.category, termsJson),
          location: asWire(row.location, termsJson),
        };
        if (wire.images === row.images && wire.category === row.category && wire.location === row.location) continue;
        await db.updateTable('listings').set(wire).where('id', '=', row.id).execute();
      }
      if (rows.length < CHUNK) return;
      after = Number(rows[rows.length - 1]!.id);
    }
  },
  // Nothing to undo: the JSON holds the same data either way.
  async down(): Promise<void> {},
};
