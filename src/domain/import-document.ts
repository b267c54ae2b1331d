/**
 * The import document: users and listings in the shapes the interface returns, as `souk import`
 * reads it and the server API's `PUT users/{id}`, `PUT listings/{id}` and `POST import` take it
 * (one format, two doors). Parsing it either yields the catalog or names the first bad entry by
 * its path, e.g. `listings[3].images[0].sizes.full.width: expected integer`. Which password hashes
 * cost too much to verify is the caller's to say (auth/passwords/forms.ts, dearHashProblem).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Catalog } from './catalog.js';
import { DEFAULT_LISTING_DETAILS, LISTING_STATUSES, PRICING_TYPES, type ListingRecord, type UserRecord } from './model.js';
import { ImageObject, ListingContact, ListingStore, TermObject } from './media.js';

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const OptText = Type.Optional(Type.String({ maxLength: 10_000 }));
const Decimal = Type.String({ pattern: '^([0-9]{1,15}(\\.[0-9]{1,8})?)?$' });
const Words = Type.Optional(Type.Array(Type.String({ maxLength: 1000 })));
/** RFC 3339 with its offset (or Z); a space may stand for the T, as WordPress writes dates. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/;

export const ImportUser = Type.Object(
  {
    id: Id,
    login: Type.String({ minLength: 1, maxLength: 255 }),
    name: OptText,
    email: OptText,
    phone: OptText,
    whatsapp: OptText,
    website: OptText,
    profile_picture: OptText,
    disabled: Type.Optional(Type.Boolean()),
    first_name: OptText,
    last_name: OptText,
    description: OptText,
    is_admin: Type.Optional(Type.Boolean()),
    address: OptText,
    zipcode: OptText,
    latitude: OptText,
    longitude: OptText,
    locations: Type.Optional(Type.Array(TermObject)),
    registered: Type.Optional(
      Type.String({
        pattern: DATE_TIME.source,
        description:
          "When the account was made, with its offset, as listings' created_at. An account younger than a day gets a quarter of the abuse limits. Absent: the stored date, else unknown (the full limits).",
      }),
    ),
    /** Never printed, nor echoed by an import error (which names the path only). */
    password_hash: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description:
          "The user's password hash as WordPress stores it: phpass ($P$, $H$), WordPress 6.8+ ($wp$2y$...), bcrypt ($2y$, $2a$, $2b$) or argon2id. Absent: the stored password stays. Refused when dearer than Souk verifies: bcrypt cost above 14, argon2id memory above 262144 KiB, time cost above 10 or parallelism above 16, phpass above 2^13 rounds.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const ImportListing = Type.Object(
  {
    id: Id,
    owner_id: Id,
    title: Type.String({ maxLength: 10_000 }),
    slug: Type.Optional(Type.String({ maxLength: 1000 })),
    status: Type.Optional(Type.Union(LISTING_STATUSES.map((s) => Type.Literal(s)))),
    price: Type.Optional(Decimal),
    images: Type.Optional(Type.Array(ImageObject)),
    category: Type.Optional(Type.Array(TermObject)),
    location: Type.Optional(Type.Array(TermObject)),
    pricing_type: Type.Optional(Type.Union(PRICING_TYPES.map((s) => Type.Literal(s)))),
    max_price: Type.Optional(Decimal),
    price_type: OptText,
    price_units: Words,
    price_unit: OptText,
    ad_type: OptText,
    tags: Type.Optional(Type.Array(TermObject)),
    created_at: Type.Optional(
      Type.String({
        pattern: DATE_TIME.source,
        description:
          "The listing's date, with its offset: 2026-11-23T18:05:55Z or 2026-11-23 19:05:55+01:00. Absent: the stored one, else the import's time.",
      }),
    ),
    view_count: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    promotions: Words,
    badges: Words,
    contact: Type.Optional(Type.Partial(ListingContact)),
    store: Type.Optional(Type.Union([ListingStore, Type.Null()])),
  },
  { additionalProperties: false },
);

export const ImportDocument = Type.Object(
  {
    users: Type.Optional(Type.Array(ImportUser)),
    listings: Type.Optional(Type.Array(ImportListing)),
  },
  { additionalProperties: false, title: 'Souk import document' },
);
export type ImportDocument = Static<typeof ImportDocument>;

/** `/listings/3/images/0` -> `listings[3].images[0]` */
export function displayPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** The deepest error first: a union's "expected one of" is less helpful than the field inside it. */
function firstProblem(schema: TSchema, value: unknown): { path: string; problem: string } | null {
  let best: { path: string; message: string } | null = null;
  for (const error of Value.Errors(schema, value)) {
    if (!best || error.path.length > best.path.length) best = { path: error.path, message: error.message };
    if (best.path.split('/').length > 6) break;
  }
  if (!best) return null;
  return { path: displayPath(best.path) || '(document)', problem: lowerFirst(best.message) };
}

export function slugify(title: string, id: number): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || String(id);
}

function toUser(u: Static<typeof ImportUser>): UserRecord {
  return {
    id: u.id,
    login: u.login,
    name: u.name ?? '',
    email: u.email ?? '',
    phone: u.phone ?? '',
    whatsapp: u.whatsapp ?? '',
    website: u.website ?? '',
    profilePicture: u.profile_picture ?? '',
    disabled: u.disabled ?? false,
    firstName: u.first_name ?? '',
    lastName: u.last_name ?? '',
    description: u.description ?? '',
    isAdmin: u.is_admin ?? false,
    address: u.address ?? '',
    zipcode: u.zipcode ?? '',
    latitude: u.latitude ?? '',
    longitude: u.longitude ?? '',
    locations: u.locations ?? [],
    registeredAt: u.registered === undefined ? null : documentDate(u.registered),
    passwordHash: u.password_hash,
  };
}

function toListing(l: Static<typeof ImportListing>): ListingRecord {
  return {
    id: l.id,
    ownerId: l.owner_id,
    title: l.title,
    slug: l.slug || slugify(l.title, l.id),
    status: l.status ?? 'publish',
    price: l.price ?? '',
    images: l.images ?? [],
    category: l.category ?? [],
    location: l.location ?? [],
    details: toListingDetails(l),
  };
}

function toListingDetails(l: Static<typeof ImportListing>): ListingRecord['details'] {
  const d = DEFAULT_LISTING_DETAILS;
  return {
    pricingType: l.pricing_type ?? d.pricingType,
    maxPrice: l.max_price ?? d.maxPrice,
    priceType: l.price_type ?? d.priceType,
    priceUnits: l.price_units ?? d.priceUnits,
    priceUnit: l.price_unit ?? d.priceUnit,
    adType: l.ad_type ?? d.adType,
    tags: l.tags ?? d.tags,
    createdAt: l.created_at === undefined ? undefined : documentDate(l.created_at),
    viewCount: l.view_count ?? d.viewCount,
    promotions: l.promotions ?? d.promotions,
    badges: l.badges ?? d.badges,
    contact: { ...d.contact, ...l.contact },
    store: l.store ?? d.store,
  };
}

/** A date the pattern let through, in epoch ms; NaN when the calendar has no such day or time (2026-02-30, 24:00:00). */
function documentDate(text: string): number {
  const [year, month, day, hour, minute, second] = (text.match(/\d+/g) ?? []).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const asUtc = new Date(Date.UTC(year, month - 1, day));
  const exists = asUtc.getUTCMonth() === month - 1 && asUtc.getUTCDate() === day && hour < 24 && minute < 60 && second < 60;
  return exists ? Date.parse(text.replace(' ', 'T')) : NaN;
}

/** What makes a password hash too dear to verify, or undefined when it is not (auth/passwords/forms.ts). */
export type HashProblem = (hash: string) => string | undefined;

/** Names the user and what is too dear, never the hash. */
export function dearHashMessage(id: number, login: string, problem: string): string {
  return `user ${id} (${JSON.stringify(login)}): the password hash costs more than Souk verifies (${problem}); give the user a new password first`;
}

function firstImpossibleDate(doc: ImportDocument): string | undefined {
  const impossible = (text: string | undefined) => text !== undefined && Number.isNaN(documentDate(text));
  const user = (doc.users ?? []).findIndex((u) => impossible(u.registered));
  if (user >= 0) return `users[${user}].registered`;
  const listing = (doc.listings ?? []).findIndex((l) => impossible(l.created_at));
  return listing < 0 ? undefined : `listings[${listing}].created_at`;
}

export type ParsedDocument = { ok: true; catalog: Catalog } | { ok: false; path: string; problem: string };

/** PostgreSQL text cannot hold U+0000, so no installation accepts it (the interface's text rule too). */
function firstNul(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = firstNul(child, Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function parseImportDocument(value: unknown, hashProblem: HashProblem): ParsedDocument {
  const problem = firstProblem(ImportDocument, value);
  if (problem) return { ok: false, ...problem };
  const nul = firstNul(value);
  if (nul !== undefined) return { ok: false, path: nul, problem: 'must not contain the NUL character (U+0000)' };
  const doc = value as ImportDocument;
  const date = firstImpossibleDate(doc);
  if (date !== undefined) return { ok: false, path: date, problem: 'not a date and time that exists' };
  const dear = (doc.users ?? []).findIndex((u) => u.password_hash !== undefined && hashProblem(u.password_hash) !== undefined);
  if (dear >= 0) {
    const user = doc.users![dear]!;
    const problem = dearHashMessage(user.id, user.login, hashProblem(user.password_hash!)!);
    return { ok: false, path: `users[${dear}].password_hash`, problem };
  }
  return { ok: true, catalog: { users: (doc.users ?? []).map(toUser), listings: (doc.listings ?? []).map(toListing) } };
}
