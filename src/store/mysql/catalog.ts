/**
 * Users and listings read from WordPress's own tables, into the domain's types: a user from
 * wp_users and wp_usermeta, a listing from wp_posts (post_type rtcl_listing), wp_postmeta, its
 * terms and its image attachments. A listing asked for again is reused while its post row is
 * unchanged (findListings); users are cached above the store (auth/user-cache.ts), for at most
 * CATALOG_PERIOD_MS.
 */
import { sql } from 'kysely';
import type { ListingDetails, ListingStatus, ShownListing, TermObject, User, Listing, ListingContact } from '../../domain/model.js';
import { imagesJson, stringsJson, termsJson, contactJson } from '../common/media-json.js';
import { CATALOG_PERIOD_MS, rows, statement, T, together, type Db, type MysqlContext } from './context.js';
import { hierarchical, imageObject, termObject, type AttachmentRow, type TermRow } from './media.js';
import { phpObject, type SiteOptions } from './site.js';

/** The user meta that marks a user disabled by the operator, or erased, on a WordPress site (epoch ms). */
export const SOUK_DISABLED_META = 'souk_disabled';
export const SOUK_ERASED_META = 'souk_erased';

/** `MAX(CASE WHEN m.meta_key = 'k' THEN m.meta_value END) AS alias`, one per meta key: a row's metas as columns. */
function pivot(keys: Record<string, string>) {
  return sql.join(
    Object.entries(keys).map(([alias, key]) => sql`max(case when m.meta_key = ${key} then m.meta_value end) as ${sql.id(alias)}`),
  );
}

const USER_META = {
  first_name: 'first_name',
  last_name: 'last_name',
  description: 'description',
  phone: '_rtcl_phone',
  whatsapp: '_rtcl_whatsapp_number',
  website: '_rtcl_website',
  pp_id: '_rtcl_pp_id',
  location: '_rtcl_location',
  zipcode: '_rtcl_zipcode',
  address: '_rtcl_address',
  latitude: '_rtcl_latitude',
  longitude: '_rtcl_longitude',
  // Souk's own marks (mysql/moderation.ts): the site's profile stays as it is.
  souk_disabled: SOUK_DISABLED_META,
  souk_erased: SOUK_ERASED_META,
};

interface UserRow {
  ID: number | string;
  user_login: string;
  user_email: string;
  display_name: string;
  user_status: number | string;
  user_pass: string;
  /** user_registered (WordPress writes it in UTC) in seconds since 1970; null for a zero date. */
  registered_s: number | string | null;
  capabilities: string | null;
  first_name: string | null;
  last_name: string | null;
  description: string | null;
  phone: string | null;
  whatsapp: string | null;
  website: string | null;
  pp_id: string | null;
  location: string | null;
  zipcode: string | null;
  address: string | null;
  latitude: string | null;
  longitude: string | null;
  souk_disabled: string | null;
  souk_erased: string | null;
}

/** Term ids from a meta value: one id, or a PHP-serialised list of them. */
function termIds(raw: string | null): number[] {
  if (!raw) return [];
  if (/^\d+$/.test(raw)) return [Number(raw)];
  return Object.values(phpObject(raw))
    .map(Number)
    .filter((n) => Number.isSafeInteger(n) && n > 0);
}

async function termsById(db: Db, ctx: MysqlContext, ids: number[], taxonomy: string): Promise<TermObject[]> {
  if (ids.length === 0) return [];
  const { t } = ctx;
  const found = await rows(
    db,
    sql<TermRow>`select t.term_id, t.name, t.slug, t.term_group, tt.term_taxonomy_id, tt.taxonomy, tt.description, tt.parent, tt.count
      from ${T(t.termTaxonomy)} tt join ${T(t.terms)} t on t.term_id = tt.term_id
      where tt.taxonomy = ${taxonomy} and t.term_id in (${sql.join(ids)})`,
  );
  return hierarchical(found.map(termObject));
}

/** A picture attachment's address: its thumbnail when WordPress made one, else the file. */
async function attachmentUrl(db: Db, ctx: MysqlContext, id: number, site: SiteOptions): Promise<string> {
  const found = await attachments(db, ctx, sql`a.ID = ${id}`);
  const image = found[0] && imageObject(found[0], site);
  return image ? image.sizes.thumbnail.src : '';
}

interface UserPictureRow extends UserRow {
  /** The picture attachment joined by `pp_id`, when it is an image attachment. */
  pp_found: number | string | null;
  pp_file: string | null;
  pp_meta: string | null;
}

/**
 * The users matching `condition`, lowest id first, each with its metas as columns and its profile
 * picture's attachment (file and metadata) joined in: one round trip for a user and its picture.
 * One grouped join, no derived table: materialising one and sorting its rows, attachment metadata
 * and all, cost MariaDB twice the CPU. The picture is the attachment whose id is the `pp_id`
 * column's value (its MAX) read as a number; its metas repeat each user meta row, which MAX ignores.
 */
function usersQuery(ctx: MysqlContext, condition: ReturnType<typeof sql>, limit: ReturnType<typeof sql>) {
  const { t } = ctx;
  const keys = { ...USER_META, capabilities: `${t.prefix}capabilities` };
  const pictureId = sql`(select cast(max(pp.meta_value) as unsigned) from ${T(t.usermeta)} pp where pp.user_id = u.ID and pp.meta_key = ${USER_META.pp_id})`;
  const pictureMeta = (key: string) => sql`max(case when pm.meta_key = ${key} then pm.meta_value end)`;
  // timestampdiff reads the datetime as it is, whatever the session's time zone (unix_timestamp would apply it).
  const registered = sql`timestampdiff(second, '1970-01-01 00:00:00', nullif(u.user_registered, '0000-00-00 00:00:00'))`;
  return sql<UserPictureRow>`select u.ID, u.user_login, u.user_email, u.display_name, u.user_status, u.user_pass, ${registered} as registered_s, ${pivot(keys)},
      max(pa.ID) as pp_found, ${pictureMeta('_wp_attached_file')} as pp_file, ${pictureMeta('_wp_attachment_metadata')} as pp_meta
    from ${T(t.users)} u left join ${T(t.usermeta)} m on m.user_id = u.ID and m.meta_key in (${sql.join(Object.values(keys))})
      left join ${T(t.posts)} pa on pa.ID = ${pictureId} and pa.post_type = 'attachment' and pa.post_mime_type like 'image/%'
      left join ${T(t.postmeta)} pm on pm.post_id = pa.ID and pm.meta_key in ('_wp_attached_file', '_wp_attachment_metadata')
    where ${condition} group by u.ID order by u.ID ${limit}`;
}

const userById = statement((ctx, _variant, id: number) => usersQuery(ctx, sql`u.ID = ${id}`, sql`limit 1`));
const userByLogin = statement((ctx, _variant, login: string) => usersQuery(ctx, sql`u.user_login = ${login}`, sql`limit 1`));
const userByEmail = statement((ctx, _variant, email: string) => usersQuery(ctx, sql`u.user_email = ${email}`, sql`limit 1`));

async function toUser(db: Db, ctx: MysqlContext, row: UserPictureRow, site: SiteOptions): Promise<User> {
  const ppId = Number(row.pp_id);
  let profilePicture = '';
  if (Number.isSafeInteger(ppId) && ppId > 0) {
    // The join compared as MySQL reads a number in text; a value JavaScript reads otherwise (` 12`,
    // `0x1f`) is looked up alone, as it always was.
    if (!/^\d+$/.test(row.pp_id ?? '')) profilePicture = await attachmentUrl(db, ctx, ppId, site);
    else if (row.pp_found !== null && Number(row.pp_found) === ppId) {
      const picture = { ID: ppId, post_title: '', post_excerpt: '', post_mime_type: '', file: row.pp_file, meta: row.pp_meta, alt: null };
      profilePicture = imageObject(picture, site)?.sizes.thumbnail.src ?? '';
    }
  }
  return {
    id: Number(row.ID),
    login: row.user_login,
    name: row.display_name,
    email: row.user_email,
    phone: row.phone ?? '',
    whatsapp: row.whatsapp ?? '',
    website: row.website ?? '',
    profilePicture,
    disabled: Number(row.user_status) !== 0 || row.souk_disabled !== null || row.souk_erased !== null,
    firstName: row.first_name ?? '',
    lastName: row.last_name ?? '',
    description: row.description ?? '',
    isAdmin: 'administrator' in phpObject(row.capabilities ?? undefined),
    address: row.address ?? '',
    zipcode: row.zipcode ?? '',
    latitude: row.latitude ?? '',
    longitude: row.longitude ?? '',
    locations: await termsById(db, ctx, termIds(row.location), 'rtcl_location'),
    registeredAt: row.registered_s === null ? null : Number(row.registered_s) * 1000,
  };
}

/**
 * A user's row and password hash. Disabled: WordPress has no such flag; a user whose legacy
 * `user_status` is not 0 (multisite's "spam" mark, which WordPress refuses at sign-in), or whom
 * Souk's operator disabled or erased (SOUK_DISABLED_META, SOUK_ERASED_META), counts as disabled. Admin: the site's `{prefix}capabilities` holds `administrator`.
 */
export async function loadUser(
  db: Db,
  ctx: MysqlContext,
  where: { id: number } | { login: string } | { email: string },
): Promise<{ user: User; passwordHash: string } | undefined> {
  const found =
    'id' in where
      ? await userById(db, ctx, '', where.id)
      : 'login' in where
        ? await userByLogin(db, ctx, '', where.login)
        : await userByEmail(db, ctx, '', where.email);
  const row = found.rows[0];
  if (!row) return undefined;
  return { user: await toUser(db, ctx, row, await ctx.site()), passwordHash: row.user_pass };
}

/** Users by id, in one query (a page of conversations' participants); missing ids are left out. */
export async function loadUsers(db: Db, ctx: MysqlContext, ids: number[]): Promise<Map<number, User>> {
  const out = new Map<number, User>();
  if (ids.length === 0) return out;
  const found = await rows(db, usersQuery(ctx, sql`u.ID in (${sql.join(ids)})`, sql``));
  const site = await ctx.site();
  for (const row of found) out.set(Number(row.ID), await toUser(db, ctx, row, site));
  return out;
}

const LISTING_META = {
  price: 'price',
  price_type: 'price_type',
  pricing: '_rtcl_listing_pricing',
  max_price: '_rtcl_max_price',
  price_unit: '_rtcl_price_unit',
  ad_type: 'ad_type',
  views: '_views',
  phone: 'phone',
  whatsapp: '_rtcl_whatsapp_number',
  email: 'email',
  website: 'website',
  address: 'address',
  zipcode: 'zipcode',
  latitude: 'latitude',
  longitude: 'longitude',
  hide_map: 'hide_map',
  geo_address: '_rtcl_geo_address',
  featured: 'featured',
  top: '_top',
  bump_up: '_bump_up',
};

type ListingRow = { [K in keyof typeof LISTING_META]: string | null } & {
  ID: number | string;
  post_author: number | string;
  post_title: string;
  post_name: string;
  post_status: string;
  post_date_gmt: string;
  post_modified_gmt: string;
};

/** The plugin's statuses as the domain's; auto-drafts and the like are not listings yet. */
const STATUS: Record<string, ListingStatus> = {
  publish: 'publish',
  pending: 'pending',
  draft: 'draft',
  private: 'draft',
  future: 'pending',
  'rtcl-expired': 'expired',
  trash: 'trash',
};

/**
 * Image attachments, in their gallery order (menu_order, then id). Sorted here: sorted by MariaDB
 * after grouping, the rows went through a temporary table, metadata and all (three times the CPU).
 */
type ImageRow = AttachmentRow & { post_parent: number; menu_order: number | string };

const attachmentsQuery = (ctx: MysqlContext, where: ReturnType<typeof sql>) =>
  sql<ImageRow>`select a.ID, a.menu_order, a.post_parent, a.post_title, a.post_excerpt, a.post_mime_type,
      ${pivot({ file: '_wp_attached_file', meta: '_wp_attachment_metadata', alt: '_wp_attachment_image_alt' })}
    from ${T(ctx.t.posts)} a left join ${T(ctx.t.postmeta)} m on m.post_id = a.ID
      and m.meta_key in ('_wp_attached_file', '_wp_attachment_metadata', '_wp_attachment_image_alt')
    where ${where} and a.post_type = 'attachment' and a.post_mime_type like 'image/%'
    group by a.ID order by null`;

const inGalleryOrder = (found: ImageRow[]) =>
  found.sort((a, b) => Number(a.menu_order) - Number(b.menu_order) || Number(a.ID) - Number(b.ID));

async function attachments(db: Db, ctx: MysqlContext, where: ReturnType<typeof sql>): Promise<ImageRow[]> {
  return inGalleryOrder(await rows(db, attachmentsQuery(ctx, where)));
}

interface LoadedListing {
  listing: Listing;
  row: ListingRow;
  tags: TermObject[];
  locations: TermObject[];
}

/** Listings by id, with their terms and images, as the plugin's replies show them; missing ids are left out. */
async function loadListings(db: Db, ctx: MysqlContext, ids: number[]): Promise<Map<number, LoadedListing>> {
  const out = new Map<number, LoadedListing>();
  if (ids.length === 0) return out;
  const { t } = ctx;
  const site = await ctx.site();
  const idList = sql.join(ids);
  // The three in one round trip.
  const results = await together(db, ctx, [
    sql<ListingRow>`select p.ID, p.post_author, p.post_title, p.post_name, p.post_status, p.post_date_gmt, p.post_modified_gmt,
        ${pivot(LISTING_META)}
      from ${T(t.posts)} p left join ${T(t.postmeta)} m on m.post_id = p.ID and m.meta_key in (${sql.join(Object.values(LISTING_META))})
      where p.ID in (${idList}) and p.post_type = 'rtcl_listing' group by p.ID`.compile(db),
    sql<TermRow>`select r.object_id, t.term_id, t.name, t.slug, t.term_group, tt.term_taxonomy_id, tt.taxonomy, tt.description, tt.parent, tt.count
      from ${T(t.termRelationships)} r join ${T(t.termTaxonomy)} tt on tt.term_taxonomy_id = r.term_taxonomy_id
      join ${T(t.terms)} t on t.term_id = tt.term_id
      where r.object_id in (${idList}) and tt.taxonomy in ('rtcl_category', 'rtcl_location', 'rtcl_tag')`.compile(db),
    attachmentsQuery(ctx, sql`a.post_parent in (${idList})`).compile(db),
  ]);
  const posts = results[0]!.rows as ListingRow[];
  const terms = results[1]!.rows as TermRow[];
  const images = inGalleryOrder(results[2]!.rows as ImageRow[]);
  for (const row of posts) {
    const status = STATUS[row.post_status];
    if (!status) continue;
    const id = Number(row.ID);
    const mine = terms.filter((r) => Number(r.object_id) === id).map(termObject);
    const of = (taxonomy: string) => hierarchical(mine.filter((term) => term.taxonomy === taxonomy));
    const locations = of('rtcl_location');
    const listing: Listing = {
      id,
      ownerId: Number(row.post_author),
      title: row.post_title,
      slug: row.post_name,
      status,
      price: row.price ?? '',
      media: {
        images: imagesJson(
          images.flatMap((a) => {
            const image = Number(a.post_parent) === id ? imageObject(a, site) : undefined;
            return image ? [image] : [];
          }),
        ),
        category: termsJson(of('rtcl_category')),
        location: termsJson(locations),
      },
      priceType: row.price_type ?? '',
    };
    out.set(id, { listing, row, tags: of('rtcl_tag'), locations });
  }
  return out;
}

/** A listing's own row in wp_posts: what findListings checks a kept listing against. */
export interface PostState {
  ID: number | string;
  post_author: number | string;
  post_title: string;
  post_name: string;
  post_status: string;
  post_modified_gmt: string;
}

const postStates = (db: Db, ctx: MysqlContext, ids: number[]) =>
  rows(
    db,
    sql<PostState>`select ID, post_author, post_title, post_name, post_status, post_modified_gmt from ${T(ctx.t.posts)}
      where ID in (${sql.join(ids)}) and post_type = 'rtcl_listing'`,
  );
const postState = statement(
  (ctx, _variant, id: number) =>
    sql<PostState>`select ID, post_author, post_title, post_name, post_status, post_modified_gmt from ${T(ctx.t.posts)}
      where ID = ${id} and post_type = 'rtcl_listing'`,
);

const PERIODS = 2 ** 20;

/**
 * The version a listing is kept with: its post's post_modified_gmt (WordPress sets it on every
 * save of the post, the plugin's listing form and the admin's editor alike), in the current
 * CATALOG_PERIOD_MS. Not every change of the site moves post_modified_gmt (a meta written alone,
 * an image uploaded, a term renamed), and the site's save is no transaction (a read between its
 * post and its metas sees half of it), so a kept listing is also read again every period.
 */
function versionOf(modifiedGmt: string, now: number): number {
  const seconds = Math.floor(Date.parse(`${modifiedGmt.replace(' ', 'T')}Z`) / 1000);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 0) * PERIODS + (Math.floor(now / CATALOG_PERIOD_MS) % PERIODS);
}

/** A kept listing still says what its post row says. */
const matches = (listing: Listing, row: PostState) =>
  listing.ownerId === Number(row.post_author) &&
  listing.title === row.post_title &&
  listing.slug === row.post_name &&
  listing.status === STATUS[row.post_status];

/**
 * Listings by id as findById answers them; missing ids are left out. A listing asked for again
 * (ctx.listings) is served from its post row alone (one primary-key read for all of `ids`) while
 * that row's version is the one it was read at; the others are read whole, in one go.
 */
export async function findListings(db: Db, ctx: MysqlContext, ids: number[], now = Date.now()): Promise<Map<number, Listing>> {
  const out = new Map<number, Listing>();
  const kept = ids.filter((id) => ctx.listings.has(id));
  const toRead = kept.length === ids.length ? [] : ids.filter((id) => !ctx.listings.has(id));
  if (kept.length > 0) {
    const states = kept.length === 1 ? (await postState(db, ctx, '', kept[0]!)).rows : await postStates(db, ctx, kept);
    for (const row of states) {
      const id = Number(row.ID);
      const listing = ctx.listings.get(id, versionOf(row.post_modified_gmt, now));
      if (listing && matches(listing, row)) out.set(id, listing);
      else toRead.push(id);
    }
    // A kept id without a post row is no listing now: left out, as a read would leave it.
  }
  if (toRead.length > 0) await readWhole(db, ctx, [...new Set(toRead)], now, out);
  return out;
}

async function readWhole(db: Db, ctx: MysqlContext, ids: number[], now: number, out: Map<number, Listing>): Promise<void> {
  for (const [id, { listing, row }] of await loadListings(db, ctx, ids)) {
    ctx.listings.offer(id, versionOf(row.post_modified_gmt, now), listing);
    out.set(id, listing);
  }
}

/**
 * The listing `id` as findListings answers it, given its post row as another statement read it
 * (undefined: none): a kept listing that still matches it costs no query.
 */
export async function listingOfState(
  db: Db,
  ctx: MysqlContext,
  id: number,
  state: PostState | undefined,
  now = Date.now(),
): Promise<Listing | undefined> {
  if (!state) return undefined;
  const kept = ctx.listings.get(id, versionOf(state.post_modified_gmt, now));
  if (kept && matches(kept, state)) return kept;
  const out = new Map<number, Listing>();
  await readWhole(db, ctx, [id], now, out);
  return out.get(id);
}

export async function loadListing(db: Db, ctx: MysqlContext, id: number): Promise<Listing | undefined> {
  return (await findListings(db, ctx, [id])).get(id);
}

export const statusQuery = statement(
  (ctx, _variant, id: number) =>
    sql<{ post_status: string }>`select post_status from ${T(ctx.t.posts)} where ID = ${id} and post_type = 'rtcl_listing'`,
);

export const statusOfRow = (row: { post_status: string } | undefined): ListingStatus | undefined =>
  row ? STATUS[row.post_status] : undefined;

export async function listingStatus(db: Db, ctx: MysqlContext, id: number): Promise<ListingStatus | undefined> {
  return statusOfRow((await statusQuery(db, ctx, '', id)).rows[0]);
}

/** Of these listings, the published ones. */
export async function publishedAmong(db: Db, ctx: MysqlContext, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const found = await rows(
    db,
    sql<{ ID: number | string }>`select ID from ${T(ctx.t.posts)}
      where ID in (${sql.join(ids)}) and post_type = 'rtcl_listing' and post_status = 'publish'`,
  );
  return new Set(found.map((r) => Number(r.ID)));
}

const DAY_MS = 86_400_000;

/** The plugin's badges: CSS classes (`is-new`, `is-featured`, `is-popular`, `is-{ad_type}`), then the labels. */
function badges(row: ListingRow, createdAt: number, site: SiteOptions, now: number): string[] {
  const isNew = now - createdAt < site.newListingDays * DAY_MS;
  const featured = row.featured === '1';
  const popular = Number(row.views ?? 0) >= site.popularViews;
  const classes = [
    ...(isNew ? ['is-new'] : []),
    ...(featured ? ['is-featured'] : []),
    ...(popular ? ['is-popular'] : []),
    ...(row.ad_type ? [`is-${row.ad_type}`] : []),
  ];
  return [...classes, ...(isNew ? ['new'] : []), ...(featured ? ['featured'] : []), ...(popular ? ['popular'] : [])];
}

/** Listings with what the favourites list shows of them, in the order of `ids`. */
export async function loadShownListings(db: Db, ctx: MysqlContext, ids: number[], now = Date.now()): Promise<ShownListing[]> {
  const loaded = await loadListings(db, ctx, ids);
  const site = await ctx.site();
  return ids.flatMap((id) => {
    const found = loaded.get(id);
    if (!found) return [];
    const { listing, row, tags, locations } = found;
    const createdAt = Date.parse(`${row.post_date_gmt.replace(' ', 'T')}Z`);
    const pricing = row.pricing === 'range' || row.pricing === 'disabled' ? row.pricing : 'price';
    const contact: ListingContact = {
      locations,
      latitude: row.latitude ?? '',
      longitude: row.longitude ?? '',
      hide_map: row.hide_map === '1',
      zipcode: row.zipcode ?? '',
      address: row.address ?? '',
      phone: row.phone ?? '',
      whatsapp_number: row.whatsapp ?? '',
      email: row.email ?? '',
      website: row.website ?? '',
      geo_address: row.geo_address ?? '',
    };
    const promotions = [
      ...(row.featured === '1' ? ['featured'] : []),
      ...(row.top === '1' ? ['top'] : []),
      ...(row.bump_up === '1' ? ['bump_up'] : []),
    ];
    const details: ListingDetails = {
      pricingType: pricing,
      maxPrice: row.max_price ?? '',
      priceType: row.price_type ?? '',
      priceUnit: row.price_unit ?? '',
      adType: row.ad_type ?? '',
      createdAt: Number.isFinite(createdAt) ? createdAt : 0,
      viewCount: Number(row.views ?? 0) || 0,
      store: null,
      json: {
        priceUnits: '[]',
        tags: termsJson(tags),
        promotions: stringsJson(promotions),
        badges: stringsJson(badges(row, createdAt, site, now)),
        contact: contactJson(contact),
      },
    };
    return [{ listing, details }];
  });
}
