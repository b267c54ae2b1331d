/** Admin writes to users and listings: the import and listing removal. */
import { sql, type Kysely } from 'kysely';
import type { ListingDetailsRecord } from '../../domain/model.js';
import type { CatalogRepository } from '../../domain/ports.js';
import type { Database } from './schema.js';
import { insertAudit } from './server-api.js';
import { contactJson, imagesJson, storeJson, stringsJson, termsJson } from './media-json.js';

const CHUNK = 500;

export function catalogRepository(db: Kysely<Database>): CatalogRepository {
  return {
    recordAudit: (entry) => insertAudit(db, entry),
    async upsertUser(u) {
      const row = {
        login: u.login,
        name: u.name,
        email: u.email,
        phone: u.phone,
        whatsapp: u.whatsapp,
        website: u.website,
        profile_picture: u.profilePicture,
        disabled: u.disabled ? 1 : 0,
        first_name: u.firstName,
        last_name: u.lastName,
        description: u.description,
        is_admin: u.isAdmin ? 1 : 0,
        address: u.address,
        zipcode: u.zipcode,
        latitude: u.latitude,
        longitude: u.longitude,
        locations: termsJson(u.locations),
        // Without a date in the record the stored one stays.
        ...(u.registeredAt !== null && { registered_at: u.registeredAt }),
      };
      // A user the operator disabled stays disabled, and an erased one stays erased (migration 019).
      const moderated = (erasedOnly: boolean) =>
        sql`exists (select 1 from user_moderation m where m.user_id = users.id ${erasedOnly ? sql`and m.erased_at is not null` : sql``})`;
      await db
        .insertInto('users')
        .values({ id: u.id, ...row })
        .onConflict((oc) =>
          oc
            .column('id')
            .doUpdateSet({ ...row, disabled: sql<number>`case when ${moderated(false)} then 1 else ${row.disabled} end` })
            .where(sql<boolean>`not ${moderated(true)}`),
        )
        .execute();
      if (u.passwordHash !== undefined) await setPasswordHash(db, u.id, u.passwordHash);
    },
    async upsertListing(l) {
      const row = {
        owner_id: l.ownerId,
        title: l.title,
        slug: l.slug,
        status: l.status,
        price: l.price,
        // The interface's own JSON (media-json.ts): replies carry these columns as they are.
        images: imagesJson(l.images),
        category: termsJson(l.category),
        location: termsJson(l.location),
        updated_at: Date.now(),
      };
      await db
        .insertInto('listings')
        .values({ id: l.id, ...row })
        .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({ ...row, version: eb('listings.version', '+', 1) })))
        .execute();
      await upsertDetails(db, l.id, l.details, row.updated_at);
    },
    async existingUserIds(ids) {
      const found = new Set<number>();
      for (let i = 0; i < ids.length; i += CHUNK) {
        const rows = await db
          .selectFrom('users')
          .select('id')
          .where('id', 'in', ids.slice(i, i + CHUNK))
          .execute();
        for (const r of rows) found.add(r.id);
      }
      return found;
    },
    // Favourites go with their listing: the foreign key's cascade (PostgreSQL), a trigger (SQLite, migration 005).
    async deleteListings(ids) {
      const deleted: number[] = [];
      for (let i = 0; i < ids.length; i += CHUNK) {
        const rows = await db
          .deleteFrom('listings')
          .where('id', 'in', ids.slice(i, i + CHUNK))
          .returning('id')
          .execute();
        deleted.push(...rows.map((r) => r.id));
      }
      return deleted;
    },
  };
}

/** A listing's details as stored, but its key and date. */
export function listingDetailsRow(d: ListingDetailsRecord) {
  return {
    pricing_type: d.pricingType,
    max_price: d.maxPrice,
    price_type: d.priceType,
    // The reply's own JSON, as for images and terms: the favourites list carries these as they are.
    price_units: stringsJson(d.priceUnits),
    price_unit: d.priceUnit,
    ad_type: d.adType,
    tags: termsJson(d.tags),
    view_count: d.viewCount,
    promotions: stringsJson(d.promotions),
    badges: stringsJson(d.badges),
    contact: contactJson(d.contact),
    store: d.store === null ? null : storeJson(d.store),
  };
}

/** Writes a listing's details; without a date in the record the stored one stays (a new listing is dated `now`). */
async function upsertDetails(db: Kysely<Database>, listingId: number, d: ListingDetailsRecord, now: number): Promise<void> {
  const row = listingDetailsRow(d);
  const dated = d.createdAt === undefined ? {} : { created_at: d.createdAt };
  await db
    .insertInto('listing_details')
    .values({ listing_id: listingId, created_at: now, ...row, ...dated })
    .onConflict((oc) => oc.column('listing_id').doUpdateSet({ ...row, ...dated }))
    .execute();
}

/** Stores a user's password hash in place of the one before, if any. */
export async function setPasswordHash(db: Kysely<Database>, userId: number, passwordHash: string): Promise<void> {
  await db
    .insertInto('user_credentials')
    .values({ user_id: userId, password_hash: passwordHash })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ password_hash: passwordHash }))
    .execute();
}
