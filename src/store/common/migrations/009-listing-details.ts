import type { Kysely } from 'kysely';

/**
 * What the favourites list shows of a listing (docs/routes.md, "What the catalog must now carry"),
 * in a table beside listings rather than in its rows: see ListingDetailsTable (schema.ts). A
 * listing without a row here (imported before) shows the import's defaults, dated when it was
 * last imported. Removing a listing removes its row (the foreign key's cascade).
 */
export function listingDetailsMigration(int64: 'bigint' | 'integer') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('listing_details')
        .addColumn('listing_id', int64, (c) => c.primaryKey().references('listings.id').onDelete('cascade'))
        .addColumn('pricing_type', 'text', (c) => c.notNull())
        .addColumn('max_price', 'text', (c) => c.notNull())
        .addColumn('price_type', 'text', (c) => c.notNull())
        .addColumn('price_units', 'text', (c) => c.notNull())
        .addColumn('price_unit', 'text', (c) => c.notNull())
        .addColumn('ad_type', 'text', (c) => c.notNull())
        .addColumn('tags', 'text', (c) => c.notNull())
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('view_count', int64, (c) => c.notNull())
        .addColumn('promotions', 'text', (c) => c.notNull())
        .addColumn('badges', 'text', (c) => c.notNull())
        .addColumn('contact', 'text', (c) => c.notNull())
        .addColumn('store', 'text')
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('listing_details').ifExists().execute();
    },
  };
}
