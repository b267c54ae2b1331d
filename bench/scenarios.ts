/**
 * What each row sends, and how each reply is checked. Every request carries the token of a
 * different user (spread over the whole data set) and a listing chosen so the row measures
 * what it says:
 *   toggle          pairs (user, listing) cycled so that half the toggles add and half remove;
 *   start-new       (caller, listing) pairs that never had a conversation, each used once;
 *   start-existing  the data set's conversations, re-started by their caller (an append);
 *   bare            the toggle's request shape, sent to the bare server;
 *   floor-*         the toggle's and start-new's requests, sent to the floor (bench/floor.ts);
 *   chat-list       GET my/chat by the caller of one of the data set's conversations;
 *   chat-poll       GET my/chat/conversation of one of the data set's conversations, by its caller;
 *   login           POST login of a user of the data set, with the right password (a bcrypt verification each);
 *   toggle-under-logins  the toggle's requests, while LOGIN_BURST_CONNECTIONS more connections sign in;
 *   toggle-streams  the toggle's requests, while --streams idle event streams are open;
 *   streams         --streams event streams, and messages at --message-rate to their users (bench/streams.ts).
 * The caller never owns the listing. Every reply is checked (a 200 with the wrong content is
 * counted as an error), so a broken server cannot post a good number.
 */
import { signToken } from '../src/auth/jwt.js';
import { BENCH_PASSWORD, listingId, pairKey, rng, userId, type Dataset } from './dataset.js';
// @ts-expect-error plain JavaScript module without types
import { BARE_REPLY } from './bare-server.mjs';

export type RowName =
  | 'bare'
  | 'floor-toggle'
  | 'floor-start-new'
  | 'toggle'
  | 'start-new'
  | 'start-existing'
  | 'chat-list'
  | 'chat-poll'
  | 'login'
  | 'toggle-under-logins'
  | 'toggle-streams'
  | 'streams';
export const ROWS: RowName[] = [
  'bare',
  'floor-toggle',
  'floor-start-new',
  'toggle',
  'toggle-streams',
  'start-new',
  'start-existing',
  'chat-list',
  'chat-poll',
  'login',
  'toggle-under-logins',
  'streams',
];
/** Rows that hold --streams open event streams on the (first) Souk process (bench/streams.ts). */
export const holdsStreams = (name: RowName) => name === 'streams' || name === 'toggle-streams';
export const isFloorRow = (name: RowName) => name.startsWith('floor-');
/** The floor row each Souk row is set against ("% of floor"). */
export const FLOOR_OF: Partial<Record<RowName, RowName>> = { toggle: 'floor-toggle', 'start-new': 'floor-start-new' };

export const API_BASE = `${process.env.API_PREFIX ?? '/wp-json/rtcl'}/v1`;
export const PATHS = {
  toggle: `${API_BASE}/my/favourites`,
  start: `${API_BASE}/my/chat/conversation`,
  chats: `${API_BASE}/my/chat`,
  login: `${API_BASE}/login`,
} as const;

/** How many connections sign in, back to back, beside the toggle's load in the toggle-under-logins row. */
export const LOGIN_BURST_CONNECTIONS = 8;

export type Context = Record<string, number>;

export interface Scenario {
  name: RowName;
  /** POST when absent. */
  method?: 'GET';
  /** The load generator's connections for this row, when not --connections. */
  connections?: number;
  path: string;
  /**
   * Picks the next request: its JSON body (none for a GET), its path when not `path`, and the
   * caller's user index; notes in ctx what verify needs.
   */
  next(ctx: Context): { body?: string; path?: string; user: number };
  /** null when the reply is what the operation should return, else what is wrong. */
  verify(status: number, body: string, ctx: Context): string | null;
  /** Counters worth reporting (adds/removes, conversations created, ...). */
  counters(): Record<string, number>;
}

/** One pre-signed token per user, so requests spread over every user of the data set. */
export function signTokens(data: Dataset): string[] {
  const tokens = new Array<string>(data.sizes.users);
  for (let u = 0; u < tokens.length; u++) tokens[u] = signToken(data.jwtSecret, userId(u), `user${userId(u)}`, 86_400);
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
  for (let u = 0; u < data.sizes.users; u++) if (data.favStart[u + 1]! > data.favStart[u]!) users.push(u);
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

export function toggleScenario(data: Dataset, name: RowName = 'toggle'): Scenario {
  let shared = soukToggles.get(data);
  if (!shared && !isFloorRow(name)) soukToggles.set(data, (shared = freshTogglePairs(data)));
  // The floor keeps its own database: its pairs start from the data set's state.
  const { pairs, state } = isFloorRow(name) ? freshTogglePairs(data) : shared!;
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

/** lastSeededId: the highest conversation id the server held before the row (the floor holds none). */
export function startNewScenario(data: Dataset, name: RowName = 'start-new', lastSeededId = data.maxConversationId): Scenario {
  const random = rng(11);
  const U = data.sizes.users;
  const used = new Set<number>();
  const conversations = new Set<number>();
  return {
    name,
    path: PATHS.start,
    next(ctx) {
      let l: number;
      let caller: number;
      let key: number;
      // A (caller, listing) pair with no conversation yet, never used before in this run.
      do {
        l = Math.floor(random() * data.sizes.listings);
        caller = Math.floor(random() * U);
        key = pairKey(l, caller, U);
      } while (caller === data.owner[l] || data.seededPairs.has(key) || used.has(key));
      used.add(key);
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
      return null;
    },
    counters: () => ({ created: conversations.size }),
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

/** A fixed shuffle of the data set's conversations, so consecutive requests hit unrelated ones. */
function shuffledConversations(data: Dataset, seed: number): Int32Array {
  const C = data.convId.length;
  const random = rng(seed);
  const order = Int32Array.from({ length: C }, (_, k) => k);
  for (let k = C - 1; k > 0; k--) {
    const j = Math.floor(random() * (k + 1));
    [order[k], order[j]] = [order[j]!, order[k]!];
  }
  return order;
}

/** GET my/chat: the caller's first page, which must list at least the conversation picked. */
export function chatListScenario(data: Dataset): Scenario {
  const order = shuffledConversations(data, 17);
  let i = 0;
  let listed = 0;
  return {
    name: 'chat-list',
    method: 'GET',
    path: PATHS.chats,
    next() {
      return { user: data.convCaller[order[i++ % order.length]!]! };
    },
    verify(status, body) {
      if (status !== 200) return `status ${status}`;
      const r = parse(body) as { data?: { con_id?: unknown }[]; pagination?: { total?: number } } | undefined;
      if (!r || !Array.isArray(r.data) || !r.pagination) return 'reply is not a conversation list';
      if (r.data.length === 0 || !(r.pagination.total! >= r.data.length)) return 'the caller has conversations, none listed';
      if (!r.data.every((c) => Number.isInteger(c.con_id))) return 'a list item without an integer con_id';
      listed += r.data.length;
      return null;
    },
    counters: () => ({ listed }),
  };
}

/** GET my/chat/conversation: a conversation of the data set with its messages, by its caller. */
export function chatPollScenario(data: Dataset): Scenario {
  const order = shuffledConversations(data, 19);
  let i = 0;
  let messages = 0;
  return {
    name: 'chat-poll',
    method: 'GET',
    path: PATHS.start,
    next(ctx) {
      const c = order[i++ % order.length]!;
      ctx.conv = c;
      return { path: `${PATHS.start}?con_id=${data.convId[c]}`, user: data.convCaller[c]! };
    },
    verify(status, body, ctx) {
      if (status !== 200) return `status ${status}`;
      const r = parse(body) as { con_id?: number; messages?: { con_id?: string }[] } | undefined;
      if (!r || r.con_id !== data.convId[ctx.conv!]) return 'not the conversation asked for';
      if (!Array.isArray(r.messages) || r.messages.length === 0) return 'no messages';
      if (!r.messages.every((m) => m.con_id === String(r.con_id))) return 'a message of another conversation';
      messages += r.messages.length;
      return null;
    },
    counters: () => ({ messages }),
  };
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

export function scenario(name: RowName, data: Dataset): Scenario {
  switch (name) {
    case 'bare':
      return bareScenario(data);
    case 'toggle':
      return toggleScenario(data);
    case 'floor-toggle':
      return toggleScenario(data, name);
    case 'floor-start-new':
      return startNewScenario(data, name, 0);
    case 'start-new':
      return startNewScenario(data);
    case 'start-existing':
      return startExistingScenario(data);
    case 'chat-list':
      return chatListScenario(data);
    case 'chat-poll':
      return chatPollScenario(data);
    case 'login':
      return loginScenario(data);
    case 'toggle-under-logins':
    case 'toggle-streams':
      return toggleScenario(data, name);
    case 'streams':
      throw new Error('the streams row has no autocannon scenario (bench/streams.ts)');
  }
}
