/**
 * What each row sends, and how each reply is checked. Every request carries the token of a
 * different user (spread over the whole data set) and a listing chosen so the row measures
 * what it says:
 *   toggle          pairs (user, listing) cycled so that half the toggles add and half remove;
 *   start-new       (caller, listing) pairs that never had a conversation, each used once;
 *   start-existing  the data set's conversations, re-started by their caller (an append);
 *   message-send    POST my/chat/message in the data set's conversations, by their caller or owner in turn;
 *   message-photo   the same, as the upload form with one 1 MB photo (bench/photo.ts);
 *   offer           POST my/chat/offer in the data set's conversations, by their caller or owner in turn (an offer is a message);
 *   offer-accept    POST my/chat/offer/respond accepting, as the listing's owner, an offer a buyer made first (prepare):
 *                   each in a conversation of its own (start-new's fresh pairs), the one offer pending there;
 *   bare            the toggle's request shape, sent to the bare server;
 *   pgbench         no request of Souk's: PostgreSQL's own `pgbench -N` on the same server (bench/pgbench.ts);
 *   chat-poll       GET my/chat/conversation of a reader's conversation (the latest 50 of its 60 messages);
 *   chat-list       GET my/chat by a reader (the first 20 of its 25 conversations);
 *   favourites      GET my/favourites by a reader (the latest 20 of its 30);
 *   floor-*         the same requests as the row of that name, sent to the floor (bench/floor.ts):
 *                   toggle and start-new to bench/floor-toggle.mjs, the reads to bench/floor-reads.mjs;
 *                   floor-mysql-* to bench/floor-mysql.mjs, on the bench's own WordPress database (mysql:// only);
 *                   floor-pg-* to bench/floor-postgres.mjs, on the bench's own PostgreSQL schema (postgres:// only);
 *                   floor-duties-* and floor-pg-duties-*: the same floors doing Souk's duties too (FLOOR_DUTIES=1);
 *   login           POST login of a user of the data set, with the right password (a bcrypt verification each);
 *   server-upsert-user     PUT /souk/v1/users/{id} with a server key: ids above the data set's, cycled, so a
 *                          first pass creates and later ones change a name (each with its audit row);
 *   server-upsert-listing  PUT /souk/v1/listings/{id} likewise, owned by the data set's users;
 *   toggle-under-logins  the toggle's requests, while LOGIN_BURST_CONNECTIONS more connections sign in;
 *   toggle-streams  the toggle's requests, while --streams idle event streams are open;
 *   streams         --streams event streams, and messages at --message-rate to their users (bench/streams.ts).
 * The caller never owns the listing. The write rows' callers are never readers (dataset.ts), so
 * the reads find the same data whatever ran before them. Every reply is checked (a 200 with the
 * wrong content is counted as an error), so a broken server cannot post a good number.
 */
import { signToken } from '../src/auth/jwt.js';
import {
  BENCH_PASSWORD,
  listingId,
  pairKey,
  READER_FAVOURITES,
  READER_THREADS,
  rng,
  THREAD_MESSAGES,
  userId,
  type Dataset,
} from './dataset.js';
// @ts-expect-error plain JavaScript module without types
import { BARE_REPLY } from './bare-server.mjs';
import { PHOTO_CONTENT_TYPE, photoForm } from './photo.js';
import type { ConsoleSession } from './console-session.js';

export type RowName =
  | 'bare'
  | 'pgbench'
  | 'floor-toggle'
  | 'floor-start-new'
  | 'floor-chat-poll'
  | 'floor-chat-list'
  | 'floor-favourites'
  | 'floor-mysql-toggle'
  | 'floor-mysql-start-new'
  | 'floor-mysql-chat-poll'
  | 'floor-pg-toggle'
  | 'floor-pg-start-new'
  | 'floor-pg-chat-poll'
  | 'floor-duties-toggle'
  | 'floor-duties-start-new'
  | 'floor-pg-duties-toggle'
  | 'floor-pg-duties-start-new'
  | 'toggle'
  | 'start-new'
  | 'start-existing'
  | 'message-send'
  | 'offer'
  | 'offer-accept'
  | 'message-photo'
  | 'chat-poll'
  | 'chat-list'
  | 'favourites'
  | 'login'
  | 'server-upsert-user'
  | 'server-upsert-listing'
  | 'toggle-under-logins'
  | 'toggle-streams'
  | 'streams'
  | 'chat-list-heavy'
  | 'favourites-heavy'
  | 'chat-poll-long'
  | 'console-reports'
  | 'console-user'
  | 'console-conversation'
  | 'toggle-under-console';
export const ROWS: RowName[] = [
  'bare',
  'pgbench',
  'floor-toggle',
  'floor-start-new',
  'floor-chat-poll',
  'floor-chat-list',
  'floor-favourites',
  'floor-mysql-toggle',
  'floor-mysql-start-new',
  'floor-mysql-chat-poll',
  'floor-pg-toggle',
  'floor-pg-start-new',
  'floor-pg-chat-poll',
  'floor-duties-toggle',
  'floor-duties-start-new',
  'floor-pg-duties-toggle',
  'floor-pg-duties-start-new',
  'toggle',
  'toggle-streams',
  'start-new',
  'start-existing',
  'message-send',
  'offer',
  'offer-accept',
  'message-photo',
  'chat-poll',
  'chat-list',
  'favourites',
  'login',
  'server-upsert-user',
  'server-upsert-listing',
  'toggle-under-logins',
  'streams',
  'chat-list-heavy',
  'favourites-heavy',
  'chat-poll-long',
  'console-reports',
  'console-user',
  'console-conversation',
  'toggle-under-console',
];
/** The heaviest users' reads (dataset.ts HeavyIndex): not on a WordPress site, whose data set has none. */
export const isHeavyRow = (name: RowName) => name === 'chat-list-heavy' || name === 'favourites-heavy' || name === 'chat-poll-long';
/** Rows with a signed-in staff member of the console (bench/console-session.ts): SQLite and PostgreSQL. */
export const isConsoleRow = (name: RowName) => name.startsWith('console-') || name === 'toggle-under-console';
/** The connections of the console's page rows: a few staff at a time, not a crowd (their p99 is a page's, not a queue's). */
export const CONSOLE_CONNECTIONS = 4;
/** The server API's rows: a server key, not a user's token; they write Souk's own catalog, so not on a WordPress site. */
export const isServerApiRow = (name: RowName) => name.startsWith('server-');
/** Rows that hold --streams open event streams on the (first) Souk process (bench/streams.ts). */
export const holdsStreams = (name: RowName) => name === 'streams' || name === 'toggle-streams';
export const isFloorRow = (name: RowName) => name.startsWith('floor-');
/** Rows that are references, not Souk: the bare server, the floors, PostgreSQL's pgbench. */
export const isReferenceRow = (name: RowName) => name === 'bare' || name === 'pgbench' || isFloorRow(name);
/** The floor rows of bench/floor-reads.mjs, which reads Souk's own SQLite file; the others are bench/floor-toggle.mjs's. */
export const isFloorReadRow = (name: RowName) => name === 'floor-chat-poll' || name === 'floor-chat-list' || name === 'floor-favourites';
/** The floor rows of bench/floor-mysql.mjs, on the bench's own WordPress database (DATABASE_URL=mysql://... only). */
export const isMysqlFloorRow = (name: RowName) => name.startsWith('floor-mysql-');
/** The floor rows of bench/floor-postgres.mjs, on the bench's own PostgreSQL schema (DATABASE_URL=postgres://... only). */
export const isPgFloorRow = (name: RowName) => name.startsWith('floor-pg-');
/** The floor rows that do Souk's duties too (FLOOR_DUTIES=1): its limits counted, its checks' reads, its event log and outbox writes, its log line. */
export const isDutyFloorRow = (name: RowName) => name.startsWith('floor-duties-') || name.startsWith('floor-pg-duties-');
/** The floor rows that work on the bench's own database, as Souk does (the others keep a database of their own or read Souk's SQLite file). */
export const onBenchDatabase = (name: RowName) => isMysqlFloorRow(name) || isPgFloorRow(name);
/**
 * On MySQL and PostgreSQL, Souk's rows are set against the floor that works on the same database,
 * when it ran (each database's floor rows run only on it).
 */
export const DATABASE_FLOOR_OF: Partial<Record<RowName, RowName[]>> = {
  toggle: ['floor-mysql-toggle', 'floor-pg-toggle'],
  'start-new': ['floor-mysql-start-new', 'floor-pg-start-new'],
  'chat-poll': ['floor-mysql-chat-poll', 'floor-pg-chat-poll'],
};
/** The floor row each Souk row is set against ("% of floor"): a message sent against the floor's start (issue 19). */
export const FLOOR_OF: Partial<Record<RowName, RowName>> = {
  toggle: 'floor-toggle',
  'start-new': 'floor-start-new',
  'message-send': 'floor-start-new',
  offer: 'floor-start-new',
  'offer-accept': 'floor-start-new',
  'chat-poll': 'floor-chat-poll',
  'chat-list': 'floor-chat-list',
  favourites: 'floor-favourites',
};
/**
 * The duty floor row each Souk row is also set against ("% of duty floor"), the database's own
 * first (PostgreSQL's), as FLOOR_OF and DATABASE_FLOOR_OF pair them.
 */
export const DUTY_FLOOR_OF: Partial<Record<RowName, RowName[]>> = {
  toggle: ['floor-pg-duties-toggle', 'floor-duties-toggle'],
  'start-new': ['floor-pg-duties-start-new', 'floor-duties-start-new'],
  'message-send': ['floor-pg-duties-start-new', 'floor-duties-start-new'],
  offer: ['floor-pg-duties-start-new', 'floor-duties-start-new'],
  'offer-accept': ['floor-pg-duties-start-new', 'floor-duties-start-new'],
};

export const API_BASE = `${process.env.API_PREFIX ?? '/wp-json/rtcl'}/v1`;
export const PATHS = {
  toggle: `${API_BASE}/my/favourites`,
  start: `${API_BASE}/my/chat/conversation`,
  chats: `${API_BASE}/my/chat`,
  message: `${API_BASE}/my/chat/message`,
  offer: `${API_BASE}/my/chat/offer`,
  offerRespond: `${API_BASE}/my/chat/offer/respond`,
  login: `${API_BASE}/login`,
} as const;

/** How many connections sign in, back to back, beside the toggle's load in the toggle-under-logins row. */
export const LOGIN_BURST_CONNECTIONS = 8;

export type Context = Record<string, number>;

export interface Scenario {
  name: RowName;
  /** POST when absent. */
  method?: 'GET' | 'PUT';
  /** The Authorization header of every request, when not the caller's token (a server key). */
  authorization?: string;
  /** Every request's headers, instead of the API key and the caller's token (the console's session cookie). */
  headers?: Record<string, string>;
  /** The load generator's connections for this row, when not --connections. */
  connections?: number;
  /** A row whose requests take seconds each is measured at least this long (even with --quick). */
  minSeconds?: number;
  /** Per-request timeout in seconds, when not the load generator's. */
  timeoutSeconds?: number;
  path: string;
  /**
   * Picks the next request: its JSON body (none for a GET), its path when not `path`, and the
   * caller's user index; notes in ctx what verify needs.
   */
  next(ctx: Context): { body?: string | Buffer; contentType?: string; path?: string; user: number };
  /** null when the reply is what the operation should return, else what is wrong. */
  verify(status: number, body: string, ctx: Context): string | null;
  /** Counters worth reporting (adds/removes, conversations created, ...). */
  counters(): Record<string, number>;
  /**
   * Requests the row's own need made first (offers to accept): run before its warm-up for
   * PREPARE_SHARE times its warm-up and measured seconds, so that they outlast both.
   */
  prepare?: Scenario;
}

/**
 * How much longer a row's prepare runs than the row's warm-up and measured window together: an
 * offer that starts a conversation takes about 2.2 times an accept (quick, SQLite).
 */
export const PREPARE_SHARE = 3;

/** One pre-signed token per user, so requests spread over every user of the data set. */
export function signTokens(data: Dataset): string[] {
  const tokens = new Array<string>(data.sizes.users);
  for (let u = 0; u < tokens.length; u++) tokens[u] = signToken(data, userId(u), `user${userId(u)}`, 86_400);
  return tokens;
}

function isFav(data: Dataset, u: number, l: number): boolean {
  for (let k = data.favStart[u]!; k < data.favStart[u + 1]!; k++) if (data.favListing[k] === l) return true;
  return false;
}

/**
 * Toggle pairs: for every user with favourites, one favourite (its first toggle removes it) and
 * one listing that is not (its first toggle adds it), interleaved so that any stretch of the
 * cycle is half adds and half removes; every later pass flips each pair back.
 */
function togglePairs(data: Dataset): { user: Int32Array; listing: Int32Array } {
  const random = rng(7);
  const users: number[] = [];
  for (let u = 0; u < data.firstReader; u++) if (data.favStart[u + 1]! > data.favStart[u]!) users.push(u);
  const n = users.length;
  const user = new Int32Array(2 * n);
  const listing = new Int32Array(2 * n);
  for (let k = 0; k < n; k++) {
    const a = users[k]!;
    const favs = data.favStart[a + 1]! - data.favStart[a]!;
    user[2 * k] = a;
    listing[2 * k] = data.favListing[data.favStart[a]! + Math.floor(random() * favs)]!;
    const b = users[(k + Math.floor(n / 2)) % n]!;
    let l: number;
    do l = Math.floor(random() * data.sizes.listings);
    while (data.owner[l] === b || isFav(data, b, l));
    user[2 * k + 1] = b;
    listing[2 * k + 1] = l;
  }
  return { user, listing };
}

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

const isIdArray = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isInteger(x));

export function bareScenario(data: Dataset): Scenario {
  const pairs = togglePairs(data);
  let i = 0;
  let replies = 0;
  return {
    name: 'bare',
    path: PATHS.toggle,
    next() {
      const k = i++ % pairs.user.length;
      return { body: `{"listing_id":${listingId(pairs.listing[k]!)}}`, user: pairs.user[k]! };
    },
    verify(status, body) {
      if (status !== 200) return `status ${status}`;
      if (body !== BARE_REPLY) return 'not the fixed reply';
      replies++;
      return null;
    },
    counters: () => ({ replies }),
  };
}

const UNKNOWN = 2;

interface TogglePairs {
  pairs: { user: Int32Array; listing: Int32Array };
  /**
   * Whether each pair's listing is in the user's favourites now (the first of each couple is).
   * A request in flight when a load run stops is never answered to us but may have toggled its
   * pair, so a pair is UNKNOWN from its request until its reply tells.
   */
  state: Uint8Array;
}

function freshTogglePairs(data: Dataset): TogglePairs {
  const pairs = togglePairs(data);
  const state = new Uint8Array(pairs.user.length);
  for (let k = 0; k < state.length; k += 2) state[k] = 1;
  return { pairs, state };
}

/** Souk's toggle rows run on one database one after the other: the later one goes on from the state the earlier left. */
const soukToggles = new WeakMap<Dataset, TogglePairs>();

/** The floor rows with a database of their own (the MySQL and PostgreSQL floors work on the bench's database, as Souk). */
const ownDatabase = (name: RowName) => isFloorRow(name) && !onBenchDatabase(name);

export function toggleScenario(data: Dataset, name: RowName = 'toggle'): Scenario {
  let shared = soukToggles.get(data);
  if (!shared && !ownDatabase(name)) soukToggles.set(data, (shared = freshTogglePairs(data)));
  // The floor keeps its own database: its pairs start from the data set's state.
  const { pairs, state } = ownDatabase(name) ? freshTogglePairs(data) : shared!;
  let i = 0;
  let adds = 0;
  let removes = 0;
  return {
    name,
    path: PATHS.toggle,
    next(ctx) {
      const k = i++ % pairs.user.length;
      ctx.pair = k;
      ctx.before = state[k]!;
      state[k] = UNKNOWN;
      return { body: `{"listing_id":${listingId(pairs.listing[k]!)}}`, user: pairs.user[k]! };
    },
    verify(status, body, ctx) {
      if (status !== 200) return `status ${status}`;
      const ids = parse(body);
      if (!isIdArray(ids)) return 'reply is not a JSON array of integers';
      const k = ctx.pair!;
      const present = ids.includes(listingId(pairs.listing[k]!));
      state[k] = present ? 1 : 0;
      if (present) adds++;
      else removes++;
      if (new Set(ids).size !== ids.length) return 'duplicate id in the favourites';
      if (ctx.before === UNKNOWN || present === (ctx.before === 0)) return null;
      return `toggle ${ctx.before === 0 ? 'add' : 'remove'} of a pair left it ${present ? 'in' : 'out'}`;
    },
    counters: () => ({ adds, removes }),
  };
}

const TEXT = 'Hi! Is this still available? I could pick it up tomorrow evening.';

function checkConversation(reply: unknown, ctx: Context, data: Dataset): string | null {
  const r = reply as Record<string, any> | undefined;
  if (!r || typeof r !== 'object' || !Number.isInteger(r.con_id)) return 'reply is not a conversation';
  const l = ctx.listing!;
  const caller = ctx.caller!;
  if (r.listing?.id !== listingId(l) || r.listing_id !== listingId(l)) return 'wrong listing';
  if (r.sender?.id !== userId(caller) || r.recipient?.id !== userId(data.owner[l]!)) return 'wrong participants';
  const m = r.newMessage;
  if (!m || m.con_id !== r.con_id || m.source_id !== userId(caller) || m.message !== TEXT || m.temp_id !== String(ctx.tempId)) {
    return 'wrong newMessage';
  }
  if (r.last_message_id !== m.message_id) return 'last_message_id is not the new message';
  return null;
}

let tempIds = 1_800_000_000_000;

function startBody(l: number, ctx: Context): string {
  ctx.tempId = tempIds++;
  return `{"listing_id":${listingId(l)},"text":"${TEXT}","temp_id":${ctx.tempId}}`;
}

/** The pairs the start-new rows on the bench's database used, so that a later row never picks one again. */
const soukStarts = new WeakMap<Dataset, { random: () => number; used: Set<number>; conversations: Set<number> }>();
const freshStarts = () => ({ random: rng(11), used: new Set<number>(), conversations: new Set<number>() });

/** A (listing, caller) pair with no conversation yet, never used before in this run (now marked used). */
function freshPair(data: Dataset, random: () => number, used: Set<number>): [listing: number, caller: number] {
  for (;;) {
    const l = Math.floor(random() * data.sizes.listings);
    const caller = Math.floor(random() * data.firstReader);
    const key = pairKey(l, caller, data.sizes.users);
    if (caller === data.owner[l] || data.seededPairs.has(key) || used.has(key)) continue;
    used.add(key);
    return [l, caller];
  }
}

/** lastSeededId: the highest conversation id the server held before the row (the floor holds none). */
export function startNewScenario(data: Dataset, name: RowName = 'start-new', lastSeededId = data.maxConversationId): Scenario {
  let shared = soukStarts.get(data);
  if (!shared && !ownDatabase(name)) soukStarts.set(data, (shared = freshStarts()));
  const { random, used, conversations } = ownDatabase(name) ? freshStarts() : shared!;
  let created = 0;
  return {
    name,
    path: PATHS.start,
    next(ctx) {
      const [l, caller] = freshPair(data, random, used);
      ctx.listing = l;
      ctx.caller = caller;
      return { body: startBody(l, ctx), user: caller };
    },
    verify(status, body, ctx) {
      if (status !== 200) return `status ${status}`;
      const r = parse(body) as { con_id: number } | undefined;
      const problem = checkConversation(r, ctx, data);
      if (problem) return problem;
      if (r!.con_id <= lastSeededId || conversations.has(r!.con_id)) return 'not a new conversation';
      conversations.add(r!.con_id);
      created++;
      return null;
    },
    counters: () => ({ created }),
  };
}

export function startExistingScenario(data: Dataset): Scenario {
  const order = shuffledConversations(data, 13);
  const C = order.length;
  let i = 0;
  let appended = 0;
  return {
    name: 'start-existing',
    path: PATHS.start,
    next(ctx) {
      const c = order[i++ % C]!;
      ctx.conv = c;
      ctx.listing = data.convListing[c]!;
      ctx.caller = data.convCaller[c]!;
      return { body: startBody(ctx.listing, ctx), user: ctx.caller };
    },
    verify(status, body, ctx) {
      if (status !== 200) return `status ${status}`;
      const r = parse(body) as { con_id: number } | undefined;
      const problem = checkConversation(r, ctx, data);
      if (problem) return problem;
      if (r!.con_id !== data.convId[ctx.conv!]) return 'not appended to the existing conversation';
      appended++;
      return null;
    },
    counters: () => ({ appended }),
  };
}

/** A fixed shuffle of 0 .. n-1, so consecutive requests hit unrelated conversations or users. */
function shuffled(n: number, seed: number): Int32Array {
  const random = rng(seed);
  const order = Int32Array.from({ length: n }, (_, k) => k);
  for (let k = n - 1; k > 0; k--) {
    const j = Math.floor(random() * (k + 1));
    [order[k], order[j]] = [order[j]!, order[k]!];
  }
  return order;
}

const shuffledConversations = (data: Dataset, seed: number) => shuffled(data.convId.length, seed);

/** POST my/chat/message in a data set conversation, by its caller and by its owner in turn; the reply is the stored message. */
export function messageSendScenario(data: Dataset): Scenario {
  const order = shuffledConversations(data, 29);
  let i = 0;
  let sent = 0;
  return {
    name: 'message-send',
    path: PATHS.message,
    next(ctx) {
      const c = order[i % order.length]!;
      ctx.conv = c;
      ctx.sender = i++ % 2 === 0 ? data.convCaller[c]! : data.owner[data.convListing[c]!]!;
      ctx.tempId = tempIds++;
      return { body: `{"con_id":${data.convId[c]},"text":"${TEXT}","temp_id":${ctx.tempId}}`, user: ctx.sender };
    },
    verify(status, body, ctx) {
      if (status !== 200) return `status ${status}`;
      const m = parse(body) as Record<string, unknown> | undefined;
      if (!m || m.con_id !== data.convId[ctx.conv!] || m.source_id !== userId(ctx.sender!))
        return 'not a message of the caller in that conversation';
      if (m.message !== TEXT || m.temp_id !== String(ctx.tempId) || !Number.isInteger(m.message_id)) return 'wrong message';
      sent++;
      return null;
    },
    counters: () => ({ sent }),
  };
}

/** The amount offered: within ten times every priced listing of the data set (the lowest is 5). */
const OFFER_AMOUNT = '5';

/** POST my/chat/offer in a data set conversation, by its caller and by its owner in turn; the reply is the stored offer. */
export function offerScenario(data: Dataset): Scenario {
  const order = shuffledConversations(data, 37);
  let i = 0;
  let offered = 0;
  return {
    name: 'offer',
    path: PATHS.offer,
    next(ctx) {
      const c = order[i % order.length]!;
      ctx.conv = c;
      ctx.sender = i++ % 2 === 0 ? data.convCaller[c]! : data.owner[data.convListing[c]!]!;
      return { body: `{"con_id":${data.convId[c]},"amount":"${OFFER_AMOUNT}"}`, user: ctx.sender };
    },
    verify(status, body, ctx) {
      if (status !== 200) return `status ${status}`;
      const m = parse(body) as
        { con_id?: number; source_id?: number; type?: string; meta?: { offer?: Record<string, unknown> } } | undefined;
      if (!m || m.con_id !== data.convId[ctx.conv!] || m.source_id !== userId(ctx.sender!))
        return 'not an offer of the caller in that conversation';
      const o = m.meta?.offer;
      if (m.type !== 'offer' || o?.amount !== OFFER_AMOUNT || o.status !== 'pending' || o.by !== userId(ctx.sender!)) return 'wrong offer';
      offered++;
      return null;
    },
    counters: () => ({ offered }),
  };
}

/**
 * Offers each answered once by the listing's owner: `prepare` starts conversations whose first
 * message is a buyer's offer (listing_id, a fresh pair each, as start-new picks them), and the row
 * accepts them, oldest first. With one offer pending in each conversation, an accept is the
 * answer, its message and the offer's update, and declines nothing else.
 */
export function offerAcceptScenario(data: Dataset): Scenario {
  let shared = soukStarts.get(data);
  if (!shared) soukStarts.set(data, (shared = freshStarts()));
  const { random, used } = shared;
  /** Pending offers made by prepare, not yet asked to be accepted: message id, conversation id, owner. */
  const pending: Array<[number, number, number]> = [];
  let made = 0;
  let accepted = 0;
  const prepare: Scenario = {
    name: 'offer-accept',
    path: PATHS.offer,
    next(ctx) {
      const [l, caller] = freshPair(data, random, used);
      ctx.listing = l;
      ctx.caller = caller;
      return { body: `{"listing_id":${listingId(l)},"amount":"${OFFER_AMOUNT}"}`, user: caller };
    },
    verify(status, body, ctx) {
      if (status !== 200) return `status ${status}`;
      const m = parse(body) as { message_id?: number; con_id?: number; source_id?: number; type?: string } | undefined;
      if (!m || m.type !== 'offer' || m.source_id !== userId(ctx.caller!) || !Number.isInteger(m.message_id))
        return "not the caller's offer";
      pending.push([m.message_id!, m.con_id!, data.owner[ctx.listing!]!]);
      made++;
      return null;
    },
    counters: () => ({ made }),
  };
  let next = 0;
  let beyond = 0;
  return {
    name: 'offer-accept',
    path: PATHS.offerRespond,
    prepare,
    next(ctx) {
      // Run out (prepare made too few): the last one again, which answers 409, counted as an error.
      if (next >= pending.length) beyond++;
      const [messageId, conId, owner] = pending[Math.min(next++, pending.length - 1)]!;
      ctx.conId = conId;
      ctx.owner = owner;
      return { body: `{"message_id":${messageId},"action":"accept"}`, user: owner };
    },
    verify(status, body, ctx) {
      if (status !== 200) return `status ${status}`;
      const m = parse(body) as { con_id?: number; source_id?: number; message?: string } | undefined;
      if (!m || m.con_id !== ctx.conId || m.source_id !== userId(ctx.owner!)) return 'not an answer of the owner in that conversation';
      if (!m.message?.startsWith('Offer accepted: ')) return 'not an acceptance';
      accepted++;
      return null;
    },
    counters: () => ({ accepted, beyond }),
  };
}

/** message-send's requests as the upload form with one 1 MB photo: the reply carries the stored, re-encoded image. */
export function messagePhotoScenario(data: Dataset): Scenario {
  const order = shuffledConversations(data, 31);
  let i = 0;
  let sent = 0;
  return {
    name: 'message-photo',
    path: PATHS.message,
    // Each request re-encodes an image, a few at a time: 50 connections queue for seconds.
    minSeconds: 15,
    timeoutSeconds: 60,
    next(ctx) {
      const c = order[i % order.length]!;
      ctx.conv = c;
      ctx.sender = i++ % 2 === 0 ? data.convCaller[c]! : data.owner[data.convListing[c]!]!;
      ctx.tempId = tempIds++;
      return { body: photoForm(data.convId[c]!, TEXT, ctx.tempId), contentType: PHOTO_CONTENT_TYPE, user: ctx.sender };
    },
    verify(status, body, ctx) {
      if (status !== 200) return `status ${status}`;
      const m = parse(body) as { con_id?: number; type?: string; attachments?: { type?: string; mimeType?: string }[] } | undefined;
      if (!m || m.con_id !== data.convId[ctx.conv!]) return 'not a message in that conversation';
      if (m.type !== 'attachment' || m.attachments?.length !== 1 || m.attachments[0]!.mimeType !== 'image/jpeg') return 'no stored photo';
      sent++;
      return null;
    },
    counters: () => ({ sent }),
  };
}

/** The requests of a read row (chat-poll, chat-list, favourites, or their floor rows), each a path and its reader. */
interface ReadRequests {
  path: string;
  /** The k-th request of the cycle, with `query` added to its path (a page, a page size). */
  request(k: number, query?: string): { path: string; user: number };
  /** How many distinct requests the cycle has. */
  size: number;
  check(body: string, k: number): string | null;
}

/** Souk's default pages: GET my/chat's and GET my/favourites' 20 items, GET my/chat/conversation's 50 messages. */
const READ_PAGE = 20;
const POLL_PAGE = 50;

/** GET my/chat/conversation of a reader's conversation, by the reader: the latest 50 of its 60 messages. */
function pollRequests(data: Dataset): ReadRequests {
  const order = shuffled(data.threadId.length, 19);
  const at = (k: number) => order[k % order.length]!;
  return {
    path: PATHS.start,
    size: order.length,
    request: (k, query) => ({
      path: `${PATHS.start}?con_id=${data.threadId[at(k)]}${query ? `&${query}` : ''}`,
      user: data.threadCaller[at(k)]!,
    }),
    check(body, k) {
      const r = parse(body) as { con_id?: number; messages?: { con_id?: string }[]; pagination?: { total?: number } } | undefined;
      if (!r || r.con_id !== data.threadId[at(k)]) return 'not the conversation asked for';
      if (!Array.isArray(r.messages) || r.messages.length !== POLL_PAGE || r.pagination?.total !== THREAD_MESSAGES)
        return `not the latest ${POLL_PAGE} of ${THREAD_MESSAGES} messages`;
      if (!r.messages.every((m) => m.con_id === String(r.con_id))) return 'a message of another conversation';
      return null;
    },
  };
}

type Item = Record<string, unknown>;

/** The read rows' readers: the heavy users apart. */
const typicalReaders = (data: Dataset) => Array.from({ length: data.firstHeavy - data.firstReader }, (_, k) => data.firstReader + k);

/**
 * A reader's first page of `path` (GET my/chat, GET my/favourites), the readers shuffled: READ_PAGE
 * items of `all`, each of them one that `mineOf(reader)` accepts.
 */
function readerPages(
  data: Dataset,
  seed: number,
  path: string,
  all: number,
  mineOf: (reader: number) => (item: Item) => boolean,
  readers: number[] = typicalReaders(data),
): ReadRequests {
  const order = shuffled(readers.length, seed);
  const reader = (k: number) => readers[order[k % order.length]!]!;
  return {
    path,
    size: order.length,
    request: (k, query) => ({ path: query ? `${path}?${query}` : path, user: reader(k) }),
    check(body, k) {
      const r = parse(body) as { data?: Item[]; pagination?: { total?: number } | null } | undefined;
      if (!r || !Array.isArray(r.data) || !r.pagination) return 'reply is not a list';
      if (r.data.length !== READ_PAGE || r.pagination.total !== all) return `not the first ${READ_PAGE} of ${all}`;
      return r.data.every(mineOf(reader(k))) ? null : "an item that is not the reader's";
    },
  };
}

/** GET my/chat by a reader: the first 20 of its 25 conversations, whose ids follow each other (dataset.ts). */
const chatListRequests = (data: Dataset) =>
  readerPages(data, 17, PATHS.chats, READER_THREADS, (u) => {
    const first = data.threadId[(u - data.firstReader) * READER_THREADS]!;
    return (c) => (c.con_id as number) >= first && (c.con_id as number) < first + READER_THREADS;
  });

/** GET my/favourites by a reader: the latest 20 of its 30 favourites. */
const favouritesRequests = (data: Dataset) =>
  readerPages(data, 31, PATHS.toggle, READER_FAVOURITES, (u) => {
    const ids = new Set(Array.from(data.favListing.subarray(data.favStart[u]!, data.favStart[u + 1]!), listingId));
    return (item) => ids.has(item.listing_id as number);
  });

/** GET my/chat by a chat-heavy user: the first 20 of its 1,000 conversations (its threads and its extra ones). */
function chatListHeavyRequests(data: Dataset): ReadRequests {
  const { heavy } = data;
  const extras = heavy.chatConversations - READER_THREADS;
  return readerPages(
    data,
    41,
    PATHS.chats,
    heavy.chatConversations,
    (u) => {
      const k = heavy.chatUsers.indexOf(u);
      const first = data.threadId[(u - data.firstReader) * READER_THREADS]!;
      const extra = heavy.chatFirstExtraId[k]!;
      const id = (c: Item) => c.con_id as number;
      return (c) => (id(c) >= first && id(c) < first + READER_THREADS) || (id(c) >= extra && id(c) < extra + extras);
    },
    heavy.chatUsers,
  );
}

/** GET my/favourites by a favourites-heavy user: the latest 20 of its 5,000. */
const favouritesHeavyRequests = (data: Dataset) =>
  readerPages(
    data,
    43,
    PATHS.toggle,
    data.heavy.favourites,
    (u) => {
      const ids = new Set(Array.from(data.favListing.subarray(data.favStart[u]!, data.favStart[u + 1]!), listingId));
      return (item) => ids.has(item.listing_id as number);
    },
    data.heavy.favouriteUsers,
  );

/** GET my/chat/conversation of a long conversation by its buyer: the latest 50 of its 100,000 messages. */
function pollLongRequests(data: Dataset): ReadRequests {
  const { longConId, longUsers, longMessages } = data.heavy;
  const at = (k: number) => k % longConId.length;
  return {
    path: PATHS.start,
    size: longConId.length,
    request: (k, query) => ({ path: `${PATHS.start}?con_id=${longConId[at(k)]}${query ? `&${query}` : ''}`, user: longUsers[at(k)]! }),
    check(body, k) {
      const r = parse(body) as { con_id?: number; messages?: unknown[]; pagination?: { total?: number } } | undefined;
      if (!r || r.con_id !== longConId[at(k)]) return 'not the conversation asked for';
      if (!Array.isArray(r.messages) || r.messages.length !== POLL_PAGE || r.pagination?.total !== longMessages)
        return `not the latest ${POLL_PAGE} of ${longMessages} messages`;
      return null;
    },
  };
}

type ReadRow = 'chat-poll' | 'chat-list' | 'favourites' | 'chat-list-heavy' | 'favourites-heavy' | 'chat-poll-long';
const READS: Record<ReadRow, (data: Dataset) => ReadRequests> = {
  'chat-poll': pollRequests,
  'chat-list': chatListRequests,
  favourites: favouritesRequests,
  'chat-list-heavy': chatListHeavyRequests,
  'favourites-heavy': favouritesHeavyRequests,
  'chat-poll-long': pollLongRequests,
};
const readOf = (name: RowName) => name.replace(/^floor-(mysql-|pg-)?/, '') as ReadRow;

/** A read row (or its floor row): the reader's default page, the route the apps poll. */
export function readScenario(data: Dataset, name: RowName): Scenario {
  const reads = READS[readOf(name)](data);
  let i = 0;
  let replies = 0;
  return {
    name,
    // A heavy user's page can take longer than a short row's window once 50 of them queue: measured
    // at least 5 s, and on a few connections under --smoke (run.ts rowLength), so that replies come back.
    ...(name === 'favourites-heavy' || name === 'chat-poll-long' ? { minSeconds: 5 } : {}),
    method: 'GET',
    path: reads.path,
    next(ctx) {
      ctx.k = i++;
      return reads.request(ctx.k);
    },
    verify(status, body, ctx) {
      if (status !== 200) return `status ${status}`;
      const problem = reads.check(body, ctx.k!);
      if (!problem) replies++;
      return problem;
    },
    counters: () => ({ replies }),
  };
}

/** Other pages the byte comparison asks for besides the default one (bench/floor.ts). */
const OTHER_PAGES: Partial<Record<ReadRow, string[]>> = {
  'chat-poll': ['page=2', 'per_page=7&page=3', 'per_page=10&page=9', 'after_id=1'],
  'chat-list': ['page=2', 'per_page=7&page=4', 'per_page=100'],
  favourites: ['page=2', 'per_page=7&page=4', 'per_page=100&page=2'],
};

/**
 * What the floor's replies are compared with Souk's on before its row: the row's first `n`
 * requests (or all of them, when fewer), and each other page shape for a few of them.
 */
export function readSample(data: Dataset, name: RowName, n: number): { path: string; user: number }[] {
  const reads = READS[readOf(name)](data);
  const count = Math.min(n, reads.size);
  const sample = Array.from({ length: count }, (_, k) => reads.request(k));
  for (const [j, query] of (OTHER_PAGES[readOf(name)] ?? []).entries())
    for (let k = j; k < count; k += 4) sample.push(reads.request(k, query));
  return sample;
}

/** POST login of users spread over the data set; the reply must carry a token for that user. */
export function loginScenario(data: Dataset): Scenario {
  const random = rng(23);
  let signedIn = 0;
  return {
    name: 'login',
    path: PATHS.login,
    // Sign-ins are slow on purpose (~60 ms of a core each): 50 connections would only measure the queue.
    connections: LOGIN_BURST_CONNECTIONS,
    next(ctx) {
      const u = Math.floor(random() * data.sizes.users);
      ctx.user = u;
      return { body: JSON.stringify({ username: `user${userId(u)}`, password: BENCH_PASSWORD }), user: u };
    },
    verify(status, body, ctx) {
      if (status !== 200) return `status ${status}`;
      const r = parse(body) as { jwt_token?: unknown; user?: { id?: number } } | undefined;
      if (!r || typeof r.jwt_token !== 'string' || r.jwt_token.split('.').length !== 3) return 'no token';
      if (r.user?.id !== userId(ctx.user!)) return 'signed in as another user';
      signedIn++;
      return null;
    },
    counters: () => ({ signedIn }),
  };
}

export const SERVER_API_BASE = process.env.SERVER_API_PREFIX ?? '/souk/v1';
/** Ids the server API rows upsert, above the data set's, cycled. */
const UPSERT_ID_BASE = 50_000_000;
const UPSERT_IDS = 10_000;

/** PUT {SERVER_API_PREFIX}/users/{id} or /listings/{id}: a mix of creations (the first pass) and changes. */
export function serverUpsertScenario(data: Dataset, name: 'server-upsert-user' | 'server-upsert-listing'): Scenario {
  const users = name === 'server-upsert-user';
  let i = 0;
  let upserts = 0;
  return {
    name,
    method: 'PUT',
    authorization: `Bearer ${data.serverKey}`,
    path: `${SERVER_API_BASE}/${users ? 'users' : 'listings'}/${UPSERT_ID_BASE}`,
    next(ctx) {
      const n = i++;
      const id = UPSERT_ID_BASE + (n % UPSERT_IDS);
      ctx.id = id;
      const body = users
        ? `{"login":"member${id}","name":"Member ${n}","email":"member${id}@example.com","first_name":"Member"}`
        : `{"owner_id":${userId(n % data.sizes.users)},"title":"Road bike ${n}","price":"${100 + (n % 900)}","status":"publish"}`;
      return { body, path: `${SERVER_API_BASE}/${users ? 'users' : 'listings'}/${id}`, user: 0 };
    },
    verify(status, body, ctx) {
      if (status !== 200) return `status ${status}`;
      if (body !== `{"id":${ctx.id}}`) return 'not {"id"} of the path';
      upserts++;
      return null;
    },
    counters: () => ({ upserts }),
  };
}

/**
 * The console's pages, as a signed-in owner asks for them: the reports queue (its first page, or with
 * `paging` each of its pages in turn, as a moderator goes through them), a user's page (users spread
 * over the data set), a conversation read with a reason (a reader's thread, 60 messages; each read
 * writes its audit row).
 */
export function consoleScenario(
  data: Dataset,
  name: 'console-reports' | 'console-user' | 'console-conversation',
  session: ConsoleSession,
  paging = false,
): Scenario {
  const page = (k: number) => `/console/reports${paging && k % 10 ? `?before=${session.reportIds[(k % 10) * 50 - 1]}` : ''}`;
  const users = shuffled(data.sizes.users, 47);
  const threads = shuffled(data.threadId.length, 53);
  let i = 0;
  let pages = 0;
  const headers = { cookie: session.cookie };
  const ask: Record<typeof name, (k: number) => { path: string; body?: string; expect: string }> = {
    'console-reports': (k) => ({ path: page(k), expect: '<title>Reports · Souk console</title>' }),
    'console-user': (k) => {
      const id = userId(users[k % users.length]!);
      return { path: `/console/users/${id}`, expect: `user${id}` };
    },
    'console-conversation': (k) => {
      const id = data.threadId[threads[k % threads.length]!]!;
      const body = new URLSearchParams({ _csrf: session.csrf, reason: 'benchmark' }).toString();
      return { path: `/console/conversations/${id}/read`, body, expect: `<title>Conversation ${id} · Souk console</title>` };
    },
  };
  const post = name === 'console-conversation';
  return {
    name,
    ...(post ? {} : { method: 'GET' as const }),
    headers: post ? { ...headers, 'content-type': 'application/x-www-form-urlencoded' } : headers,
    connections: CONSOLE_CONNECTIONS,
    path: ask[name](0).path,
    next(ctx) {
      ctx.k = i++;
      const { path, body } = ask[name](ctx.k);
      return { path, user: 0, ...(body === undefined ? {} : { body }) };
    },
    verify(status, body, ctx) {
      if (status !== 200) return `status ${status}`;
      if (!body.includes(ask[name](ctx.k!).expect)) return 'not the page asked for';
      pages++;
      return null;
    },
    counters: () => ({ pages }),
  };
}

export function scenario(name: RowName, data: Dataset): Scenario {
  switch (name) {
    case 'bare':
      return bareScenario(data);
    case 'toggle':
      return toggleScenario(data);
    case 'floor-toggle':
    case 'floor-duties-toggle':
      return toggleScenario(data, name);
    case 'floor-start-new':
    case 'floor-duties-start-new':
      return startNewScenario(data, name, 0);
    case 'floor-mysql-toggle':
    case 'floor-pg-toggle':
    case 'floor-pg-duties-toggle':
      return toggleScenario(data, name);
    case 'floor-mysql-start-new':
    case 'floor-pg-start-new':
    case 'floor-pg-duties-start-new':
      return startNewScenario(data, name);
    case 'start-new':
      return startNewScenario(data);
    case 'start-existing':
      return startExistingScenario(data);
    case 'message-send':
      return messageSendScenario(data);
    case 'offer':
      return offerScenario(data);
    case 'offer-accept':
      return offerAcceptScenario(data);
    case 'message-photo':
      return messagePhotoScenario(data);
    case 'chat-poll':
    case 'chat-list':
    case 'favourites':
    case 'floor-chat-poll':
    case 'floor-chat-list':
    case 'floor-favourites':
    case 'floor-mysql-chat-poll':
    case 'floor-pg-chat-poll':
    case 'chat-list-heavy':
    case 'favourites-heavy':
    case 'chat-poll-long':
      return readScenario(data, name);
    case 'login':
      return loginScenario(data);
    case 'server-upsert-user':
    case 'server-upsert-listing':
      return serverUpsertScenario(data, name);
    case 'toggle-under-logins':
    case 'toggle-streams':
    case 'toggle-under-console':
      return toggleScenario(data, name);
    case 'console-reports':
    case 'console-user':
    case 'console-conversation':
      throw new Error('the console rows need a signed-in session: consoleScenario');
    case 'streams':
      throw new Error('the streams row has no autocannon scenario (bench/streams.ts)');
    case 'pgbench':
      throw new Error('the pgbench row has no autocannon scenario (bench/pgbench.ts)');
  }
}
