/**
 * The benchmark's data set, written straight into a fresh database with the store's Kysely
 * instance: multi-row inserts of CHUNK rows inside one transaction (not the HTTP API, not the
 * one-at-a-time import). Deterministic (seeded), so two runs build the same marketplace.
 *
 * The last `readers` users are the read rows' callers, apart from the rest: they own no listing,
 * take part in no other conversation and are left out of the write rows, so every run reads the
 * same shapes: READER_FAVOURITES published favourites each, and READER_THREADS conversations
 * ("threads") each, as their caller, of THREAD_MESSAGES messages.
 *
 * Returns an index of what was written (owners, favourites, conversations) that the load
 * generator uses to pick requests that do what each row claims to measure.
 */
import { newServerKey, serverKeyDigest } from '../src/auth/server-keys.js';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database } from '../src/store/common/schema.js';
import type { ListingDetailsRecord } from '../src/domain/model.js';
import { openStore } from '../src/store/index.js';
import { imagesJson, termsJson } from '../src/store/common/media-json.js';
import { listingDetailsRow } from '../src/store/common/catalog.js';
import { ensureSettings, toAuthSettings, type SecretOverrides } from '../src/auth/settings.js';
import { hashPassword } from '../src/auth/passwords.js';
import type { DatasetSizes, HeavySizes } from './options.js';

const CHUNK = 500;
export const LISTING_ID_BASE = 1_000_000;
export const SITE_URL = 'https://souk.example';
/** Every user's password in the data set (the login rows sign in with it); the hash is WordPress 6.8+'s, as `souk users set-password` stores it. */
export const BENCH_PASSWORD = 'bench password 1';
const DAY_MS = 86_400_000;
/** Each reader's favourites (GET my/favourites: a page of 20, the total counted), conversations (GET my/chat: 20 of 25) and their messages (GET my/chat/conversation: the latest 50 of 60). */
export const READER_FAVOURITES = 30;
export const READER_THREADS = 25;
export const THREAD_MESSAGES = 60;

export interface Dataset {
  sizes: DatasetSizes;
  /** Listing index -> owner's user index (user id = index + 1). */
  owner: Int32Array;
  /** Favourites in CSR form: user u's listing indexes are favListing[favStart[u] .. favStart[u+1]). */
  favStart: Int32Array;
  favListing: Int32Array;
  /** Seeded conversations: id, listing index and caller (sender) user index. */
  convId: Int32Array;
  convListing: Int32Array;
  convCaller: Int32Array;
  /** listing index * users + caller index of every seeded conversation. */
  seededPairs: Set<number>;
  /** The first reader's user index: users before it are the other rows'. */
  firstReader: number;
  /** The first heavy user's index: the readers from it on are the heavy rows' (HeavyIndex), not the read rows'. */
  firstHeavy: number;
  heavy: HeavyIndex;
  /** The readers' conversations (threads), reader by reader: id, listing index and caller (the reader). */
  threadId: Int32Array;
  threadListing: Int32Array;
  threadCaller: Int32Array;
  maxConversationId: number;
  counts: {
    users: number;
    listings: number;
    favourites: number;
    conversations: number;
    threads: number;
    messages: number;
    heavyConversations: number;
  };
  apiKey: string;
  jwtSecret: string;
  tokenMacKey: string;
  /** A server key (`sk_...`) stored for the server API's rows. */
  serverKey: string;
  buildSeconds: number;
}

export const userId = (index: number) => index + 1;
export const listingId = (index: number) => LISTING_ID_BASE + index;
export const pairKey = (listingIndex: number, callerIndex: number, users: number) => listingIndex * users + callerIndex;

/** mulberry32: small, fast, seeded. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ADJECTIVES = [
  'Vintage',
  'Modern',
  'Compact',
  'Solid oak',
  'Electric',
  'Handmade',
  'Leather',
  'Folding',
  'Antique',
  'Nearly new',
  'Large',
  'Small',
  'Classic',
  'Sporty',
  'Ceramic',
];
const NOUNS = [
  'road bike',
  'dining table',
  'armchair',
  'lamp',
  'bookshelf',
  'sofa',
  'guitar',
  'camera',
  'stroller',
  'desk',
  'mirror',
  'rug',
  'kettle',
  'scooter',
  'wardrobe',
  'tent',
  'laptop',
  'drill',
];
export const FIRST = [
  'Amina',
  'Youssef',
  'Sara',
  'Omar',
  'Lina',
  'Karim',
  'Nadia',
  'Hamza',
  'Leila',
  'Rachid',
  'Salma',
  'Mehdi',
  'Imane',
  'Anas',
];
export const LAST = ['K.', 'B.', 'L.', 'M.', 'E.', 'T.', 'A.', 'H.', 'R.', 'Z.'];
const CITIES = [
  'Casablanca',
  'Rabat',
  'Marrakesh',
  'Fes',
  'Tangier',
  'Agadir',
  'Meknes',
  'Oujda',
  'Kenitra',
  'Tetouan',
  'Safi',
  'El Jadida',
  'Nador',
  'Beni Mellal',
  'Essaouira',
  'Ifrane',
  'Dakhla',
  'Laayoune',
  'Khouribga',
  'Settat',
  'Larache',
  'Guelmim',
  'Errachidia',
  'Taza',
  'Ouarzazate',
];
const CATEGORIES = [
  'Bikes',
  'Furniture',
  'Electronics',
  'Phones',
  'Cameras',
  'Music',
  'Books',
  'Toys',
  'Garden',
  'Tools',
  'Sport',
  'Camping',
  'Fashion',
  'Shoes',
  'Watches',
  'Jewellery',
  'Kitchen',
  'Appliances',
  'Baby',
  'Pets',
  'Art',
  'Antiques',
  'Computers',
  'Gaming',
  'Cars',
  'Motorbikes',
  'Boats',
  'Real estate',
  'Rentals',
  'Jobs',
  'Services',
  'Lessons',
  'Tickets',
  'Health',
  'Beauty',
  'Office',
  'Lighting',
  'Textiles',
  'Collectibles',
  'Other',
];

export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function term(id: number, name: string, taxonomy: string, count: number) {
  return {
    term_id: id,
    name,
    slug: slug(name),
    term_group: 0,
    term_taxonomy_id: id,
    taxonomy,
    description: '',
    parent: 0,
    count,
    filter: 'raw',
  };
}

export const CATEGORY_TERMS = CATEGORIES.map((name, i) => term(100 + i, name, 'rtcl_category', 2500 + i));
export const LOCATION_TERMS = CITIES.map((name, i) => term(200 + i, name, 'rtcl_location', 4000 + i));

function image(id: number, name: string) {
  const base = `${SITE_URL}/wp-content/uploads/2026/10/${name}`;
  const size = (suffix: string, width: number, height: number) => ({ src: `${base}${suffix}.jpg`, width, height });
  return {
    ID: id,
    title: name,
    caption: '',
    url: `${base}.jpg`,
    alt: name,
    src: `${base}.jpg`,
    srcset: `${base}.jpg 1200w, ${base}-300x225.jpg 300w, ${base}-150x150.jpg 150w`,
    sizes: { full: size('', 1200, 900), medium: size('-300x225', 300, 225), thumbnail: size('-150x150', 150, 150) },
    mime_type: 'image/jpeg',
    src_w: 1200,
    src_h: 900,
    srcset_sizes: '(max-width: 1200px) 100vw, 1200px',
  };
}

/** The caller's first message of a seeded conversation about listing l, and the owner's reply. */
export const firstMessage = (l: number) => `Hello, is the ${titleOf(l).toLowerCase()} still available?`;
export const REPLY_MESSAGE = 'Yes, it is. You can come and see it this weekend.';

/** A listing's title depends on its index only, so messages can quote it. */
export function titleOf(listingIndex: number): string {
  const h = Math.imul(listingIndex + 1, 2654435761) >>> 0;
  return `${ADJECTIVES[h % ADJECTIVES.length]} ${NOUNS[(h >>> 8) % NOUNS.length]}`;
}

/** User u of the data set as Souk's users row; the WordPress data set writes the same values as the site stores them. */
export function userFields(u: number) {
  return {
    id: userId(u),
    login: `user${userId(u)}`,
    name: `${FIRST[u % FIRST.length]} ${LAST[(u >>> 4) % LAST.length]}`,
    email: `user${userId(u)}@example.com`,
    phone: u % 2 === 0 ? `+212 6${String(10_000_000 + u).slice(-8)}` : '',
    whatsapp: u % 4 === 0 ? `+2126${String(10_000_000 + u).slice(-8)}` : '',
    website: u % 10 === 0 ? `https://user${userId(u)}.example.com` : '',
    // Half have a picture; the other half get the Gravatar-style address (D8).
    profile_picture: u % 2 === 0 ? `${SITE_URL}/wp-content/uploads/avatars/${userId(u)}.jpg` : '',
    disabled: 0,
  };
}

const STATUSES = ['publish', 'publish', 'publish', 'publish', 'publish', 'publish', 'publish', 'pending', 'expired', 'draft'] as const;

const basicsHash = (i: number) => Math.imul(i + 7, 2246822519) >>> 0;
const statusOf = (i: number) => STATUSES[basicsHash(i) % STATUSES.length]!;

/** What listing i is, whatever the store: its title, slug, status, price, terms and time. */
export function listingBasics(i: number, now: number) {
  const title = titleOf(i);
  const s = slug(`${title}-${i}`);
  const h = basicsHash(i);
  const c1 = h % CATEGORY_TERMS.length;
  const c2 = (c1 + 1 + ((h >>> 8) % (CATEGORY_TERMS.length - 1))) % CATEGORY_TERMS.length;
  return {
    title,
    slug: s,
    status: statusOf(i),
    price: i % 20 === 0 ? '' : i % 3 === 0 ? `${(h % 5000) + 5}.50` : String((h % 50_000) + 5),
    categories: [CATEGORY_TERMS[c1]!, CATEGORY_TERMS[c2]!],
    location: LOCATION_TERMS[(h >>> 16) % LOCATION_TERMS.length]!,
    updatedAt: now - (h % (365 * DAY_MS)),
  };
}

/** Image k (1 to 3) of listing i: its attachment id (never a listing's id) and file name. */
export const imageId = (i: number, k: number) => listingId(i) * 10 + k;

/** Listing i as Souk's listings row. */
export function listingFields(i: number, owner: Int32Array, now: number) {
  const b = listingBasics(i, now);
  return {
    id: listingId(i),
    owner_id: userId(owner[i]!),
    title: b.title,
    slug: b.slug,
    status: b.status,
    price: b.price,
    // Written as the import writes them: the interface's own JSON (src/store/common/media-json.ts).
    images: imagesJson([1, 2, 3].map((k) => image(imageId(i, k), `${b.slug}-${k}`))),
    category: termsJson(b.categories),
    location: termsJson([b.location]),
    updated_at: b.updatedAt,
  };
}

/**
 * Listing i's details row (what GET my/favourites shows beyond the listing), with the values the
 * WordPress data set writes as post meta: a fixed price, for sale, its seller's contact.
 */
function listingDetailsFields(i: number, owner: Int32Array, now: number) {
  const b = listingBasics(i, now);
  const seller = userFields(owner[i]!);
  const contact = {
    locations: [b.location],
    latitude: '',
    longitude: '',
    hide_map: false,
    zipcode: String(10_000 + (i % 90_000)),
    address: `${(i % 200) + 1} Test Street`,
    phone: seller.phone,
    whatsapp_number: '',
    email: seller.email,
    website: '',
    geo_address: '',
  };
  const record: ListingDetailsRecord = {
    pricingType: 'price',
    maxPrice: '',
    priceType: 'fixed',
    priceUnits: [],
    priceUnit: '',
    adType: 'sell',
    tags: [],
    createdAt: b.updatedAt,
    viewCount: i % 1500,
    promotions: [],
    badges: [],
    contact,
    store: null,
  };
  return { listing_id: listingId(i), created_at: b.updatedAt, ...listingDetailsRow(record) };
}

/** What the two participants of a thread say, in turn; a message's line depends on its thread and place. */
const THREAD_LINES = [
  'Hello, is it still available?',
  'Yes, it is. When would you like to come and see it?',
  'Could you send a few more pictures of the back and the sides?',
  'Sure, I will take them this evening when the light is better.',
  'Would you take a little less for it if I pick it up myself?',
  'I could do a small discount if you collect it this week.',
  'Saturday morning works for me. What is the address?',
  'Near the central station; I will send the exact address on Friday.',
  'Does it come with the original box?',
  'The box yes, the receipt I will have to look for.',
  'Perfect, see you then!',
  'Thanks, see you on Saturday.',
];
const THREAD_GAP_MS = 7 * 60_000;

/** Where the readers' threads are: the index's arrays and the listings' owners. */
export type ThreadPlan = Pick<Dataset, 'threadId' | 'threadListing' | 'threadCaller' | 'owner'>;

/**
 * The threads' rows, whatever the store: thread t's conversation, and the k-th thread message
 * (thread k / THREAD_MESSAGES, its message j = k % THREAD_MESSAGES), with ids after the first
 * `messagesBefore` messages. The caller writes the even messages, the owner the odd ones, 7
 * minutes apart; the last three are unread.
 */
export function threadRows(plan: ThreadPlan, messagesBefore: number, now: number) {
  const messageId = (t: number, j: number) => messagesBefore + t * THREAD_MESSAGES + j + 1;
  const created = (t: number) => now - 30 * DAY_MS + t * 60_000;
  const sentAt = (t: number, j: number) => created(t) + j * THREAD_GAP_MS;
  const recipient = (t: number) => userId(plan.owner[plan.threadListing[t]!]!);
  return {
    conversation: (t: number) => ({
      id: plan.threadId[t]!,
      listingId: listingId(plan.threadListing[t]!),
      senderId: userId(plan.threadCaller[t]!),
      recipientId: recipient(t),
      lastMessageId: messageId(t, THREAD_MESSAGES - 1),
      createdAt: created(t),
      updatedAt: sentAt(t, THREAD_MESSAGES - 1),
    }),
    message(k: number) {
      const t = Math.floor(k / THREAD_MESSAGES);
      const j = k % THREAD_MESSAGES;
      return {
        id: messageId(t, j),
        conId: plan.threadId[t]!,
        sourceId: j % 2 === 0 ? userId(plan.threadCaller[t]!) : recipient(t),
        text: THREAD_LINES[(t * 5 + j) % THREAD_LINES.length]!,
        isRead: j < THREAD_MESSAGES - 3,
        createdAt: sentAt(t, j),
      };
    },
  };
}
export type ThreadRows = ReturnType<typeof threadRows>;

/** `count` distinct listing indexes that `fits` accepts, drawn from `random`. */
function distinctListings(random: () => number, listings: number, count: number, fits: (l: number) => boolean): number[] {
  const picks: number[] = [];
  const seen = new Set<number>();
  while (picks.length < Math.min(count, listings - 1)) {
    const l = Math.floor(random() * listings);
    if (fits(l) && !seen.has(l)) {
      seen.add(l);
      picks.push(l);
    }
  }
  return picks;
}

/**
 * The heaviest users (bench/options.ts HeavySizes), readers apart from the read rows': each keeps a
 * reader's 25 threads and 30 favourites, and one kind of weight more. A chat user is the buyer of
 * `chatConversations` conversations in all, the extra ones of two messages each (the buyer's, and
 * the seller's reply, unread), more recent than the threads; a favourites user has `favourites`
 * published ones; a long user is the buyer of one more conversation of `longMessages` messages.
 * Written on SQLite and PostgreSQL only (none on a WordPress site: the lists are empty).
 */
export interface HeavyIndex {
  chatUsers: number[];
  chatConversations: number;
  /** The id of each chat user's first extra conversation; the rest follow it. */
  chatFirstExtraId: number[];
  favouriteUsers: number[];
  favourites: number;
  longUsers: number[];
  longConId: number[];
  longMessages: number;
}

const NO_HEAVY: HeavyIndex = {
  chatUsers: [],
  chatConversations: 0,
  chatFirstExtraId: [],
  favouriteUsers: [],
  favourites: 0,
  longUsers: [],
  longConId: [],
  longMessages: 0,
};

/** The heavy users' plan: the last 3 × perKind readers, when at least one ordinary reader is left. */
function heavyPlan(sizes: HeavySizes | undefined, U: number, R: number, L: number, on: boolean) {
  const perKind = sizes && on && R - 3 * sizes.perKind >= 1 ? sizes.perKind : 0;
  const first = U - 3 * perKind;
  const range = (from: number) => Array.from({ length: perKind }, (_, k) => from + k);
  return {
    first,
    chatUsers: range(first),
    favouriteUsers: range(first + perKind),
    longUsers: range(first + 2 * perKind),
    chatConversations: perKind ? Math.max(READER_THREADS, sizes!.conversations) : 0,
    // Published listings only, distinct: at most half of them all.
    favourites: perKind ? Math.max(READER_FAVOURITES, Math.min(sizes!.favourites, Math.floor(L / 2))) : 0,
    longMessages: perKind ? sizes!.messages : 0,
  };
}

/** The heavy users' extra conversations and messages, with ids after `conversationsBefore` and `messagesBefore`. */
function heavyRows(
  heavy: HeavyIndex,
  extraListing: number[][],
  longListing: number[],
  owner: Int32Array,
  conversationsBefore: number,
  messagesBefore: number,
  now: number,
) {
  const extras = heavy.chatConversations - READER_THREADS;
  const chatCount = heavy.chatUsers.length * extras;
  const flags = { sender_delete: 0, recipient_delete: 0, sender_review: 0, recipient_review: 0, invert_review: 0 };
  const text = { type: 'text', attachments: null, meta: null, temp_id: null };
  const chatCreated = (k: number) => now - 10 * DAY_MS + k * 10_000;
  const longBase = messagesBefore + 2 * chatCount;
  const longCreated = (i: number) => now - 20 * DAY_MS + i * 10_000;
  return {
    conversations: chatCount + heavy.longUsers.length,
    messages: 2 * chatCount + heavy.longUsers.length * heavy.longMessages,
    conversation(k: number) {
      if (k < chatCount) {
        const u = heavy.chatUsers[Math.floor(k / extras)]!;
        const l = extraListing[Math.floor(k / extras)]![k % extras]!;
        const created = chatCreated(k);
        const last = messagesBefore + 2 * k + 2;
        return {
          id: conversationsBefore + k + 1,
          listing_id: listingId(l),
          sender_id: userId(u),
          recipient_id: userId(owner[l]!),
          ...flags,
          last_message_id: last,
          created_at: created,
          updated_at: created + 60_000,
        };
      }
      const j = k - chatCount;
      const l = longListing[j]!;
      return {
        id: conversationsBefore + k + 1,
        listing_id: listingId(l),
        sender_id: userId(heavy.longUsers[j]!),
        recipient_id: userId(owner[l]!),
        ...flags,
        last_message_id: longBase + (j + 1) * heavy.longMessages,
        created_at: longCreated(0),
        updated_at: longCreated(heavy.longMessages - 1),
      };
    },
    message(n: number) {
      if (n < 2 * chatCount) {
        const k = Math.floor(n / 2);
        const u = heavy.chatUsers[Math.floor(k / extras)]!;
        const l = extraListing[Math.floor(k / extras)]![k % extras]!;
        const reply = n % 2 === 1;
        return {
          id: messagesBefore + n + 1,
          con_id: conversationsBefore + k + 1,
          source_id: userId(reply ? owner[l]! : u),
          message: reply ? REPLY_MESSAGE : firstMessage(l),
          ...text,
          is_read: reply ? 0 : 1,
          created_at: chatCreated(k) + (reply ? 60_000 : 0),
        };
      }
      const m = n - 2 * chatCount;
      const j = Math.floor(m / heavy.longMessages);
      const i = m % heavy.longMessages;
      return {
        id: longBase + m + 1,
        con_id: conversationsBefore + chatCount + j + 1,
        source_id: userId(i % 2 === 0 ? heavy.longUsers[j]! : owner[longListing[j]!]!),
        message: THREAD_LINES[i % THREAD_LINES.length]!,
        ...text,
        is_read: i < heavy.longMessages - 3 ? 1 : 0,
        created_at: longCreated(i),
      };
    },
  };
}

type Db = Kysely<Database>;
type Table = keyof Database;

/** Inserts total rows made by row(i), CHUNK at a time. */
async function insertAll(db: Db, table: Table, total: number, row: (i: number) => Record<string, unknown>): Promise<void> {
  for (let start = 0; start < total; start += CHUNK) {
    const rows: Record<string, unknown>[] = [];
    for (let i = start; i < Math.min(total, start + CHUNK); i++) rows.push(row(i));
    await db
      .insertInto(table)
      .values(rows as never)
      .execute();
  }
}

/** The favourites of users 0 .. users-1, as the data set writes them. */
async function insertFavourites(db: Db, data: Pick<Dataset, 'favStart' | 'favListing'>, now: number, users: number): Promise<void> {
  const { favStart, favListing } = data;
  const favUser = new Int32Array(favStart[users]!);
  for (let u = 0; u < users; u++) favUser.fill(u, favStart[u]!, favStart[u + 1]!);
  await insertAll(db, 'favourites', favUser.length, (k) => ({
    user_id: userId(favUser[k]!),
    listing_id: listingId(favListing[k]!),
    added_at: now - (favListing.length - k) * 1000,
  }));
}

/**
 * A kept data set made ready for another run, the index being the same (seeded): the conversations
 * the write rows created go (their messages with them), and the write rows' users get back the
 * data set's favourites, so that the toggle and the start find what they expect. What else the write
 * rows added stays (messages in the seeded conversations, the event log, the server API's users and
 * listings above the data set's ids): no row reads it.
 */
async function restoreKept(db: Db, data: Omit<Dataset, 'buildSeconds'> & { now: number }, log: (line: string) => void) {
  const t = performance.now();
  const users = Number((await sql<{ n: number }>`select count(*) as n from users where id <= ${data.sizes.users}`.execute(db)).rows[0]?.n);
  const conversations = Number(
    (await sql<{ n: number }>`select count(*) as n from conversations where id <= ${data.maxConversationId}`.execute(db)).rows[0]?.n,
  );
  if (users !== data.sizes.users || conversations !== data.maxConversationId)
    throw new Error(
      `the kept data set is not this one: ${users} users and ${conversations} conversations where the sizes given make ${data.sizes.users} and ${data.maxConversationId} (give the options it was built with)`,
    );
  await db.transaction().execute(async (trx) => {
    await sql`delete from conversations where id > ${data.maxConversationId}`.execute(trx);
    await sql`delete from favourites where user_id <= ${data.firstReader}`.execute(trx);
    await insertFavourites(trx, data, data.now, data.firstReader);
  });
  log(`  the kept data set restored in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

export interface BuildOptions {
  url: string;
  sizes: DatasetSizes;
  log?: (line: string) => void;
  /** Secret overrides as the server will apply them (API_KEY / JWT_SECRET). */
  overrides?: SecretOverrides;
  /** The database holds this data set already, kept by an earlier run: take away what its write rows added instead of writing it. */
  reuse?: boolean;
}

export async function buildDataset({ url, sizes, log = () => {}, overrides, reuse = false }: BuildOptions): Promise<Dataset> {
  const t0 = performance.now();
  const store = openStore(url, { poolSize: 2, statementTimeoutMs: 600_000, connectTimeoutMs: 10_000 });
  try {
    await store.migrate();
    const all = await ensureSettings(store.settings);
    const auth = toAuthSettings(all, overrides ?? { apiKey: undefined, jwtSecret: undefined, tokenMacKey: undefined });
    const serverKey = newServerKey();
    await store.serverKeys.add('bench', serverKeyDigest(serverKey), Date.now());

    const U = sizes.users;
    const L = sizes.listings;
    const now = Date.now();
    const random = rng(20261122);
    // The readers are the last R users; the others (0 .. O-1) own the listings and make the rest.
    const R = Math.min(sizes.readers, U - 2);
    const O = U - R;
    const heavyUsers = heavyPlan(sizes.heavy, U, R, L, store.dialect !== 'mysql');
    const heavyRandom = rng(20261202);

    // Listings: owners first, so favourites and conversations can avoid the caller's own listings.
    const owner = new Int32Array(L);
    for (let i = 0; i < L; i++) owner[i] = Math.floor(random() * O);

    // Favourites: each user avg-2 .. avg+2 distinct listings (average avg), none of their own; a
    // reader READER_FAVOURITES published ones, all of which its list shows.
    const favStart = new Int32Array(U + 1);
    const favLists: number[][] = [];
    const avg = sizes.favouritesPerUser;
    for (let u = 0; u < U; u++) {
      const reader = u >= O;
      const count = reader ? READER_FAVOURITES : Math.max(0, avg - 2 + Math.floor(random() * 5));
      const picks = distinctListings(random, L, count, (l) => owner[l] !== u && (!reader || statusOf(l) === 'publish'));
      if (heavyUsers.favouriteUsers.includes(u)) {
        // Their own generator: the rest of the data set stays what it was without them.
        const mine = new Set(picks);
        picks.push(
          ...distinctListings(heavyRandom, L, heavyUsers.favourites - picks.length, (l) => statusOf(l) === 'publish' && !mine.has(l)),
        );
      }
      favLists.push(picks);
      favStart[u + 1] = favStart[u]! + picks.length;
    }
    const favListing = new Int32Array(favStart[U]!);
    favLists.forEach((picks, u) => favListing.set(picks, favStart[u]!));

    // Conversations: distinct (listing, caller) pairs, the caller never the owner nor a reader.
    const C = sizes.conversations;
    const convId = new Int32Array(C);
    const convListing = new Int32Array(C);
    const convCaller = new Int32Array(C);
    const seededPairs = new Set<number>();
    for (let c = 0; c < C; c++) {
      let l: number;
      let caller: number;
      do {
        l = Math.floor(random() * L);
        caller = Math.floor(random() * O);
      } while (caller === owner[l] || seededPairs.has(pairKey(l, caller, U)));
      seededPairs.add(pairKey(l, caller, U));
      convId[c] = c + 1;
      convListing[c] = l;
      convCaller[c] = caller;
    }
    // Threads: READER_THREADS per reader, about distinct listings (owned by others), ids after the conversations'.
    const T = R * READER_THREADS;
    const threadId = new Int32Array(T);
    const threadListing = new Int32Array(T);
    const threadCaller = new Int32Array(T);
    for (let r = 0; r < R; r++) {
      const picks = distinctListings(random, L, READER_THREADS, () => true);
      picks.forEach((l, k) => {
        const t = r * READER_THREADS + k;
        threadId[t] = C + t + 1;
        threadListing[t] = l;
        threadCaller[t] = O + r;
        seededPairs.add(pairKey(l, O + r, U));
      });
    }
    // The heavy users' extra conversations: listings none of their threads is about.
    const threadListings = (u: number) => new Set(threadListing.subarray((u - O) * READER_THREADS, (u - O + 1) * READER_THREADS));
    const extraListing = heavyUsers.chatUsers.map((u) => {
      const theirs = threadListings(u);
      return distinctListings(heavyRandom, L, heavyUsers.chatConversations - READER_THREADS, (l) => !theirs.has(l));
    });
    const longListing = heavyUsers.longUsers.map((u) => {
      const theirs = threadListings(u);
      return distinctListings(heavyRandom, L, 1, (l) => !theirs.has(l))[0]!;
    });
    extraListing.forEach((ls, k) => ls.forEach((l) => seededPairs.add(pairKey(l, heavyUsers.chatUsers[k]!, U))));
    longListing.forEach((l, k) => seededPairs.add(pairKey(l, heavyUsers.longUsers[k]!, U)));
    // Each conversation: the caller's first message, and for every other one the owner's reply.
    const replies = (c: number) => c % 2 === 0;
    const convCreated = (c: number) => now - 90 * DAY_MS + Math.floor((c / C) * 89 * DAY_MS);
    const conversationMessages = C + Math.ceil(C / 2);
    const messageCount = conversationMessages + T * THREAD_MESSAGES;

    const extras = heavyUsers.chatConversations - READER_THREADS;
    const chatExtraBase = C + T + 1;
    const heavy: HeavyIndex = heavyUsers.chatUsers.length
      ? {
          chatUsers: heavyUsers.chatUsers,
          chatConversations: heavyUsers.chatConversations,
          chatFirstExtraId: heavyUsers.chatUsers.map((_, k) => chatExtraBase + k * extras),
          favouriteUsers: heavyUsers.favouriteUsers,
          favourites: heavyUsers.favourites,
          longUsers: heavyUsers.longUsers,
          longConId: heavyUsers.longUsers.map((_, j) => chatExtraBase + heavyUsers.chatUsers.length * extras + j),
          longMessages: heavyUsers.longMessages,
        }
      : NO_HEAVY;
    const heavyWrites = heavyRows(heavy, extraListing, longListing, owner, C + T, messageCount, now);
    const counts = {
      users: U,
      listings: L,
      favourites: favListing.length,
      conversations: C,
      threads: T,
      messages: messageCount + heavyWrites.messages,
      heavyConversations: heavyWrites.conversations,
    };
    const index = {
      sizes,
      owner,
      favStart,
      favListing,
      convId,
      convListing,
      convCaller,
      seededPairs,
      firstReader: O,
      firstHeavy: heavyUsers.first,
      heavy,
      threadId,
      threadListing,
      threadCaller,
      maxConversationId: C + T + heavyWrites.conversations,
      counts,
      apiKey: auth.apiKey,
      jwtSecret: auth.jwtSecret,
      tokenMacKey: auth.tokenMacKey,
      serverKey,
    };
    const threads = threadRows({ threadId, threadListing, threadCaller, owner }, conversationMessages, now);
    if (store.dialect === 'mysql') {
      // A WordPress site's own tables: written as the site stores them (dataset-wordpress.ts).
      const { writeWordpressDataset } = await import('./dataset-wordpress.js');
      await writeWordpressDataset(url, { ...index, now, replies, convCreated, threads, log });
      return { ...index, buildSeconds: (performance.now() - t0) / 1000 };
    }
    if (reuse) await restoreKept(store.db, { ...index, now }, log);
    else
      await store.db.transaction().execute(async (trx) => {
        let t = performance.now();
        const lap = (what: string) => {
          const s = ((performance.now() - t) / 1000).toFixed(1);
          log(`  ${what} in ${s} s`);
          t = performance.now();
        };
        await insertAll(trx, 'users', U, userFields);
        // One hash for all: the same work per sign-in as one hash each, without hashing 10,000 times here.
        const passwordHash = await hashPassword(BENCH_PASSWORD);
        await insertAll(trx, 'user_credentials', U, (u) => ({ user_id: userId(u), password_hash: passwordHash }));
        lap(`${U} users`);

        await insertAll(trx, 'listings', L, (i) => listingFields(i, owner, now));
        await insertAll(trx, 'listing_details', L, (i) => listingDetailsFields(i, owner, now));
        lap(`${L} listings with their details`);

        await insertFavourites(trx, index, now, U);
        lap(`${favListing.length} favourites`);

        // Message ids: conversation c's first message is c+1; replies follow after all first messages.
        const replyIds = new Int32Array(C);
        let next = C + 1;
        for (let c = 0; c < C; c++) if (replies(c)) replyIds[c] = next++;
        await insertAll(trx, 'conversations', C, (c) => {
          const created = convCreated(c);
          return {
            id: convId[c],
            listing_id: listingId(convListing[c]!),
            sender_id: userId(convCaller[c]!),
            recipient_id: userId(owner[convListing[c]!]!),
            sender_delete: 0,
            recipient_delete: 0,
            sender_review: 0,
            recipient_review: 0,
            invert_review: 0,
            last_message_id: replies(c) ? replyIds[c] : c + 1,
            created_at: created,
            updated_at: replies(c) ? created + 3_600_000 : created,
          };
        });
        await insertAll(trx, 'messages', conversationMessages, (m) => {
          if (m < C) {
            return {
              id: m + 1,
              con_id: m + 1,
              source_id: userId(convCaller[m]!),
              message: firstMessage(convListing[m]!),
              type: 'text',
              attachments: null,
              meta: null,
              is_read: 1,
              temp_id: String(1_700_000_000_000 + m),
              created_at: convCreated(m),
            };
          }
          const c = (m - C) * 2; // the conversations with a reply are the even ones
          return {
            id: m + 1,
            con_id: c + 1,
            source_id: userId(owner[convListing[c]!]!),
            message: REPLY_MESSAGE,
            type: 'text',
            attachments: null,
            meta: null,
            is_read: c % 4 === 0 ? 1 : 0,
            temp_id: null,
            created_at: convCreated(c) + 3_600_000,
          };
        });
        lap(`${C} conversations with ${conversationMessages} messages`);
        await insertAll(trx, 'conversations', T, (t) => {
          const c = threads.conversation(t);
          const { id, listingId: listing_id, senderId: sender_id, recipientId: recipient_id, lastMessageId: last_message_id } = c;
          const flags = { sender_delete: 0, recipient_delete: 0, sender_review: 0, recipient_review: 0, invert_review: 0 };
          return { id, listing_id, sender_id, recipient_id, ...flags, last_message_id, created_at: c.createdAt, updated_at: c.updatedAt };
        });
        await insertAll(trx, 'messages', T * THREAD_MESSAGES, (k) => {
          const m = threads.message(k);
          const fields = { type: 'text', attachments: null, meta: null, temp_id: null };
          return {
            id: m.id,
            con_id: m.conId,
            source_id: m.sourceId,
            message: m.text,
            ...fields,
            is_read: m.isRead ? 1 : 0,
            created_at: m.createdAt,
          };
        });
        lap(`${R} readers' ${T} conversations with ${T * THREAD_MESSAGES} messages`);
        if (heavyWrites.conversations) {
          await insertAll(trx, 'conversations', heavyWrites.conversations, heavyWrites.conversation);
          await insertAll(trx, 'messages', heavyWrites.messages, heavyWrites.message);
          lap(`the heavy users' ${heavyWrites.conversations} more conversations with ${heavyWrites.messages} messages`);
        }
      });

    if (store.dialect === 'postgres') {
      // Explicit ids do not move the sequences; the server's inserts must not collide with them.
      for (const table of ['favourites', 'conversations', 'messages'] as const) {
        await sql`select setval(pg_get_serial_sequence(${table}, 'id'), (select coalesce(max(id), 1) from ${sql.table(table)}))`.execute(
          store.db,
        );
      }
      // What autovacuum would do soon after a bulk load.
      await sql`analyze`.execute(store.db);
    } else {
      await sql`pragma wal_checkpoint(truncate)`.execute(store.db);
    }

    return { ...index, buildSeconds: (performance.now() - t0) / 1000 };
  } finally {
    await store.close();
  }
}
