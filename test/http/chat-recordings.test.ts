/**
 * The chat routes (docs/routes.md) through the real app, replaying the recorded transcript step by
 * step: original/03-chat.txt [025]-[068] with CHAT_REPLY_FORMAT=current and original-2x/03-chat.txt
 * with CHAT_REPLY_FORMAT=classic, then the chat probes of 05-ordering-probes.txt ([087]-[096],
 * [100], [101]), on a catalog built from what the recordings show: alice (2), bob (3), carol (4)
 * from 01-login.txt and the chat's user summaries; listings 8 and 14 from the chat's listing
 * summaries, 10 from 02-favourites.txt. Each request goes as recorded (method, path, body, content
 * type), with the recorded user's token (the `name` claim of the recorded token says whose).
 * Every reply is compared with the recorded one: status, key order and types (shapeOf), values.
 *
 * Normalised on both sides before comparing:
 * - times (`created_at`, `updated_at`, `last_message_created_at`): the recording's clock is not
 *   ours. Souk's must be `YYYY-MM-DD HH:MM:SS` within minutes of now, which also proves the classic
 *   list's `created_at` is the conversation's real time, not 2.2.1's "0000-00-00 00:00:00".
 * - `profile_picture`: WordPress 6.8 hashes the e-mail with SHA-256 for Gravatar; D8 says MD5.
 *   Souk's must be `https://secure.gravatar.com/avatar/<md5 of the e-mail>?s=96&d=mm&r=g`.
 * - `amount` is compared as it is, markup included (D7's second round): the symbol on the left in
 *   current, CURRENCY_POSITION=right in classic as the 2.x site was set, PRICE_DECIMALS=0.
 *
 * Where the spec decides otherwise, Souk's decided reply is asserted instead:
 * - D6 appends the message of a start to an open conversation: [028]'s "Hello again" is stored
 *   (both originals dropped it), as message 2. So every later recorded message id n >= 2 is n + 1
 *   in Souk (in replies, and in the PUTs of [036]/[037], whose message_id 2 means bob's reply);
 *   conversation 1 holds one more message (messages lists, pagination totals); its last message
 *   is "Hello again" until bob's reply [034]; bob has one more unread message in it ([031]-[033],
 *   [043], [067], [068]); [028] answers with `newMessage` and "Hello again" as the last message.
 * - N4: `unread_count` an int, never a string (recorded "1", "2"), in both generations.
 * - N4: a message object's `temp_id` is a string: [038] answers "1234567" (4.x: 1234567).
 * - Error shape A is `{code, message}` without `data` (docs/interface.md): 4.x's 403 refusals
 *   ([041], [044]-[047], [049], [050], [052], [061], [088]) carried `data`.
 * - N3, one refusal for all: 403 A FORBIDDEN "You are not permitted to access this conversation."
 *   for [045]-[049], [050] (Fix: 4.x said "Conversation not found."), [048] and [058] (DELETE:
 *   both originals answered shape B), [061]; 2.x answered [045]-[047], [050], [061] in shape B and
 *   [049] with 503 SERVERERROR.
 * - GET my/chat/check: [041] (the owner) and [088] (unknown listing) 403 A with that message
 *   (2.x: shape B "You are not allow to access this.").
 * - D6: [044] the owner starting a conversation: 403 A with that message (4.x: "No listing found to
 *   start chat."); [052] an unknown listing: 400 B BADREQUEST "Listing not found." (both originals 403).
 * - N2: a missing required integer is 400 B BADREQUEST "<name> is required and must be a positive
 *   integer.": [053] and [090] con_id, [087] listing_id (originals: rest_missing_callback_param).
 *   [089] per_page=0 on GET my/chat: 400 B "per_page must be a positive integer." in current; in
 *   classic the list has no paging (a bare array of at most 50), so per_page is not read and the
 *   list is answered, as 2.x did.
 * - D6: [051] no text: 400 B BADREQUEST "text is required and must be a string.", what a start
 *   without text answers (originals: rest_missing_callback_param).
 * - POST my/chat/conversation, POST/PUT my/chat/message and DELETE my/chat/conversation answer the
 *   same in both generations (docs/routes.md): in classic, [027], [028], [054], [064] (the seed's
 *   start reply; 2.x answered the bare message or the classic conversation) and [034], [038] (the
 *   message object; 2.x's had no meta, attachments, type, temp_id) are compared with 4.x's reply,
 *   with the listing summary as the classic site writes it.
 * - Classic list: the recipient summary has all seven keys (2.2.1: only name and profile_picture).
 * - [094] writing into a conversation the other participant left: 403 A "The other participant has
 *   left this conversation." (Fix: both originals stored the message where bob cannot see it).
 * - [096] PATCH my/chat/message: a sender's correction (chat-plus.md), the probe's body without `text`: 400 B
 *   BADREQUEST "text is required and must be a string." (the originals had no such route: 404 rest_no_route).
 * - [100], [101]: the recorded tokens expired in 1970 (iat 1, exp 2): 401 B INVALID_TOKEN "JWT has
 *   expired." (D4 checks expiry before the user; the originals answered USER_NOT_FOUND, and 200 for
 *   alice). A live token of a user who does not exist: 403 A "You are not logged in." (D4).
 * Skipped probes: [079]-[086] (sign-in and favourites, not chat), [097], [098] (not chat routes),
 * [099] (`/?rest_route=`: Souk serves the interface at {api_base} only, D1).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { ImportDocument } from '../../src/cli/import-document.js';
import { signToken } from '../../src/auth/jwt.js';
import { recordedSteps, shapeOf, type RecordedStep } from '../helpers/recordings.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';

type Json = any;
type Generation = 'current' | 'classic';

const ALICE = 2;
const BOB = 3;
/** [028]'s text, which Souk stores (D6) and the originals did not. */
const HELLO = 'Hello again';
const HELLO_ID = 2;

const FOLDER: Record<Generation, string> = { current: 'original', classic: 'original-2x' };
/** Where each recorded site ran: its listing addresses start with it. */
const SITE: Record<Generation, string> = { current: 'http://127.0.0.1:8090', classic: 'http://127.0.0.1:8091' };

const env = (gen: Generation) => ({
  CHAT_REPLY_FORMAT: gen,
  SITE_URL: SITE[gen],
  LISTING_URL_TEMPLATE: '{site_url}/rtcl_listing/{slug}/',
  PRICE_DECIMALS: '0',
  CURRENCY_POSITION: gen === 'classic' ? 'right' : 'left',
});

const CHAT_STEPS = Array.from({ length: 68 - 25 + 1 }, (_, i) => String(25 + i).padStart(3, '0'));
const PROBE_STEPS = ['087', '088', '089', '090', '091', '092', '093', '094', '095', '096', '100', '101'];

const clone = <T>(value: T): T => structuredClone(value);

/** Every value of a JSON document, objects after their children. */
function eachObject(value: Json, visit: (o: Record<string, Json>) => void): void {
  if (Array.isArray(value)) value.forEach((v) => eachObject(v, visit));
  else if (value !== null && typeof value === 'object') {
    Object.values(value).forEach((v) => eachObject(v, visit));
    visit(value);
  }
}

// ---------------------------------------------------------------------------------------------
// The catalog, from the recordings

/** An import user from a recorded user object (GET my, or login's `user`) and the chat's name for them. */
function userFrom(u: Json, name: string) {
  return {
    id: u.id,
    login: u.username,
    name,
    email: u.email,
    phone: u.phone,
    whatsapp: u.whatsapp_number,
    website: u.website,
    first_name: u.first_name,
    last_name: u.last_name,
    description: u.description,
    is_admin: u.isAdmin,
    address: u.address,
    zipcode: u.zipcode,
    latitude: u.latitude,
    longitude: u.longitude,
    locations: u.locations,
  };
}

/** An import listing from a recorded listing summary; its owner is the conversation's recipient. */
function listingFromSummary(summary: Json, ownerId: number) {
  const slug = /\/rtcl_listing\/([^/]+)\/$/.exec(summary.url)?.[1];
  assert.ok(slug, `slug of ${summary.url}`);
  return {
    id: summary.id,
    owner_id: ownerId,
    title: summary.title,
    slug,
    price: summary.raw_price,
    price_type: 'fixed',
    images: summary.images,
    category: summary.category,
    location: summary.location,
  };
}

interface Recorded {
  gen: Generation;
  steps: Map<string, RecordedStep>;
  /** 4.x's steps: what a classic Souk answers where both generations answer alike. */
  currentSteps: Map<string, RecordedStep>;
  /** Listing summaries as this generation's site wrote them, by listing id. */
  listings: Map<number, Json>;
  /** The user summaries Souk sends (all seven keys), by user id. */
  users: Map<number, Json>;
  /** Login name to user id. */
  logins: Map<string, number>;
  document: ImportDocument;
}

const replyOf = (step: RecordedStep | undefined): Json => (step && step.replyBody !== '' ? JSON.parse(step.replyBody) : undefined);

function recorded(gen: Generation): Recorded {
  const folder = FOLDER[gen];
  const chat = recordedSteps(`${folder}/03-chat.txt`);
  const probes = recordedSteps(`${folder}/05-ordering-probes.txt`);
  const login = recordedSteps(`${folder}/01-login.txt`);

  // Names, listing summaries and owners, from every chat reply.
  const names = new Map<number, string>();
  const listings = new Map<number, Json>();
  const owners = new Map<number, number>();
  for (const step of [...chat.values(), ...probes.values()]) {
    if (!/^[[{]/.test(step.replyBody)) continue;
    eachObject(JSON.parse(step.replyBody), (o) => {
      if (typeof o.other_id === 'string') names.set(Number(o.other_id), o.display_name);
      for (const key of ['sender', 'recipient']) if (o[key]?.id !== undefined) names.set(o[key].id, o[key].name);
      if (o.listing?.id !== undefined && o.recipient_id !== undefined) {
        if (!listings.has(o.listing.id)) listings.set(o.listing.id, o.listing);
        owners.set(o.listing.id, Number(o.recipient_id));
      }
    });
  }
  const profiles = [replyOf(login.get('012')), replyOf(login.get('013')), replyOf(login.get('006')).user];
  const users = profiles.map((u) => userFrom(u, names.get(u.id)!));
  assert.deepEqual(
    users.map((u) => [u.id, u.login, u.name]),
    [
      [2, 'alice', 'Alice Tester'],
      [3, 'bob', 'Bob Tester'],
      [4, 'carol', 'Carol Tester'],
    ],
  );
  const favourites = replyOf(recordedSteps(`${folder}/02-favourites.txt`).get('016')).data as Json[];
  const ten = favourites.find((item) => item.listing_id === 10);
  const documentListings = [...listings.values()].map((summary) => listingFromSummary(summary, owners.get(summary.id)!));
  documentListings.push({
    id: 10,
    owner_id: ten.author_id,
    title: ten.title,
    slug: 'listing-10',
    price: ten.raw_price,
    price_type: ten.price_type,
    images: ten.images,
    category: ten.categories,
    location: ten.contact.locations,
  });
  assert.deepEqual(
    documentListings.map((l) => [l.id, l.owner_id]).sort((a, b) => a[0]! - b[0]!),
    [
      [8, BOB],
      [10, BOB],
      [14, 4],
    ],
  );

  const summaries = new Map<number, Json>();
  for (const u of users) {
    const summary = { id: u.id, name: u.name, email: u.email, phone: u.phone, whatsapp: u.whatsapp, website: u.website };
    summaries.set(u.id, { ...summary, profile_picture: gravatarUrl(u.email) });
  }
  return {
    gen,
    steps: new Map([...chat, ...probes]),
    currentSteps: new Map([...recordedSteps('original/03-chat.txt'), ...recordedSteps('original/05-ordering-probes.txt')]),
    listings,
    users: summaries,
    logins: new Map(users.map((u) => [u.login, u.id])),
    document: { users, listings: documentListings },
  };
}

// ---------------------------------------------------------------------------------------------
// Normalising

const md5 = (s: string) => createHash('md5').update(s.trim().toLowerCase()).digest('hex');
const gravatarUrl = (email: string) => `https://secure.gravatar.com/avatar/${md5(email)}?s=96&d=mm&r=g`;
const GRAVATAR = /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32,64}\?s=96&d=mm&r=g$/;
const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const TIME_KEYS = ['created_at', 'updated_at', 'last_message_created_at'];

/** Times and Gravatar addresses made comparable; Souk's are checked first. */
function normalise(value: Json, side: 'souk' | 'recorded', where: string): Json {
  const copy = clone(value);
  eachObject(copy, (o) => {
    for (const key of TIME_KEYS) {
      if (typeof o[key] !== 'string') continue;
      if (side === 'souk') {
        assert.match(o[key], TIME, `${where} ${key}`);
        const ms = Date.parse(`${o[key].replace(' ', 'T')}Z`);
        assert.ok(Math.abs(ms - Date.now()) < 10 * 60_000, `${where} ${key} ${o[key]} is now (UTC)`);
      }
      o[key] = '<time>';
    }
    if (typeof o.profile_picture === 'string' && GRAVATAR.test(o.profile_picture)) {
      if (side === 'souk' && typeof o.email === 'string') assert.equal(o.profile_picture, gravatarUrl(o.email), `${where} D8 Gravatar`);
      o.profile_picture = '<gravatar>';
    }
  });
  return copy;
}

// ---------------------------------------------------------------------------------------------
// What Souk answers: the recorded reply, or what the spec decides

interface Expected {
  status: number;
  body: Json;
}

const forbidden = (message = 'You are not permitted to access this conversation.'): Expected => ({
  status: 403,
  body: { code: 'FORBIDDEN', message },
});
const badRequest = (message: string): Expected => ({
  status: 400,
  body: { status: 'error', error: 'BADREQUEST', code: '400', error_message: message },
});
const expired: Expected = {
  status: 401,
  body: { status: 'error', error: 'INVALID_TOKEN', code: '401', error_message: 'JWT has expired.' },
};

/** The steps whose reply the spec decides, in both generations (why: at the top of the file). */
const DECIDED: Record<string, Expected | ((gen: Generation) => Expected | undefined)> = {
  '041': forbidden(),
  '044': forbidden(),
  '045': forbidden(),
  '046': forbidden(),
  '047': forbidden(),
  '048': forbidden(),
  '049': forbidden(),
  '050': forbidden(),
  '051': badRequest('text is required and must be a string.'),
  '052': badRequest('Listing not found.'),
  '053': badRequest('con_id is required and must be a positive integer.'),
  '058': forbidden(),
  '061': forbidden(),
  '087': badRequest('listing_id is required and must be a positive integer.'),
  '088': forbidden(),
  '089': (gen) => (gen === 'current' ? badRequest('per_page must be a positive integer.') : undefined),
  '090': badRequest('con_id is required and must be a positive integer.'),
  '094': forbidden('The other participant has left this conversation.'),
  '096': badRequest('text is required and must be a string.'),
  '100': expired,
  '101': expired,
};

/** Souk's id of a recorded message: [028]'s message is Souk's 2, so the recording's n >= 2 is n + 1. */
const soukMessageId = (id: number) => (id >= HELLO_ID ? id + 1 : id);

/** A value typed as the original typed it: a string of digits or a number. */
const sameType = (like: unknown, n: number) => (typeof like === 'string' ? String(n) : n);

/**
 * The recorded reply with [028]'s message stored (D6): ids renumbered, conversation 1 holding
 * "Hello again" (its last message until bob's reply), and one more unread message for bob there.
 */
function withHelloAgain(reply: Json, viewer: number, gen: Generation): Json {
  eachObject(reply, (o) => {
    for (const key of ['message_id', 'last_message_id']) {
      if (key in o) o[key] = sameType(o[key], soukMessageId(Number(o[key])));
    }
    if (Number(o.con_id) !== 1 || !('last_message_id' in o)) return;
    if (Number(o.last_message_id) === 1) {
      o.last_message_id = sameType(o.last_message_id, HELLO_ID);
      if ('last_message' in o) o.last_message = HELLO;
      if ('message' in o) o.message = HELLO;
    }
    if (viewer === BOB && 'unread_count' in o) o.unread_count = Number(o.unread_count) + 1;
    if (!Array.isArray(o.messages)) return;
    const rows = o.messages as Json[];
    const first = rows.find((m) => m.message_id === '1');
    if (first) {
      rows.push({ ...first, message_id: String(HELLO_ID), message: HELLO });
      // Current: newest first; classic: in the order they were sent.
      rows.sort((a, b) => (gen === 'current' ? -1 : 1) * (Number(a.message_id) - Number(b.message_id)));
    } else {
      // A page of newer messages only ([040]): "Hello again" is on a later page.
      assert.ok(rows.every((m) => Number(m.message_id) > HELLO_ID));
    }
    if (o.pagination) {
      o.pagination.total += 1;
      o.pagination.total_pages = Math.ceil(o.pagination.total / o.pagination.per_page);
    }
  });
  return reply;
}

const isRead = (step: RecordedStep) => step.method === 'GET';

function expectedReply(rec: Recorded, id: string, viewer: number): Expected {
  const decided = DECIDED[id];
  const decision = typeof decided === 'function' ? decided(rec.gen) : decided;
  if (decision) return clone(decision);

  const own = rec.steps.get(id)!;
  // Only the three GET routes differ between the generations: elsewhere classic answers as 4.x.
  const source = rec.gen === 'classic' && !isRead(own) ? rec.currentSteps.get(id)! : own;
  let body = replyOf(source);
  if (source !== own) {
    eachObject(body, (o) => {
      if (o.listing?.id !== undefined) o.listing = clone(rec.listings.get(o.listing.id));
    });
  }
  // [027] came before "Hello again".
  if (id >= '028') body = withHelloAgain(body, viewer, rec.gen);
  if (id === '028') {
    // D6: the message is appended and the reply carries it.
    Object.assign(body, { last_message_id: HELLO_ID, last_message: HELLO });
    body.newMessage = {
      message_id: HELLO_ID,
      con_id: 1,
      source_id: ALICE,
      message: HELLO,
      meta: null,
      attachments: null,
      type: 'text',
      is_read: 0,
      created_at: '<time>',
      temp_id: '',
    };
  }
  eachObject(body, (o) => {
    // N4: unread_count an int; a message's temp_id a string.
    if (typeof o.unread_count === 'string') o.unread_count = Number(o.unread_count);
    if (typeof o.temp_id === 'number') o.temp_id = String(o.temp_id);
    // Classic list: the recipient with all seven keys.
    if (rec.gen === 'classic' && o.recipient && o.recipient.id === undefined) {
      const full = rec.users.get(Number(o.recipient_id))!;
      assert.equal(o.recipient.name, full.name, `[${id}] classic recipient`);
      o.recipient = clone(full);
    }
  });
  return { status: source.status, body };
}

// ---------------------------------------------------------------------------------------------
// Replaying

/** A token of ours for the user the recorded token names (login name; an unknown one is user 99). */
function tokenOf(rec: Recorded, t: TestSouk, step: RecordedStep): string | undefined {
  const authorization = step.headers.authorization;
  if (!authorization) return undefined;
  const claims = JSON.parse(Buffer.from(authorization.split('.')[1]!, 'base64url').toString()) as { name: string; exp: number };
  const userId = rec.logins.get(claims.name) ?? 99;
  // The probes' tokens of 1970 (iat 1, exp 2): signed with our secret and the recorded times.
  if (claims.exp < 1_000_000) return signToken(t.tokenKeys, userId, claims.name, claims.exp - 1, 1000);
  return t.token(userId);
}

function viewerOf(rec: Recorded, step: RecordedStep): number {
  const authorization = step.headers.authorization;
  if (!authorization) return 0;
  const claims = JSON.parse(Buffer.from(authorization.split('.')[1]!, 'base64url').toString()) as { name: string };
  return rec.logins.get(claims.name) ?? 0;
}

/** The recorded request; a message_id in it is the recorded message's, renumbered as Souk numbers it (D6). */
function send(rec: Recorded, t: TestSouk, step: RecordedStep): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  if (step.headers['x-api-key']) headers['x-api-key'] = t.apiKey;
  const token = tokenOf(rec, t, step);
  if (token) headers.authorization = `Bearer ${token}`;
  if (step.headers['content-type']) headers['content-type'] = step.headers['content-type'];
  let payload = step.body;
  if (payload && step.headers['content-type'] === 'application/json' && /"message_id"/.test(payload)) {
    const body = JSON.parse(payload) as Json;
    payload = JSON.stringify({ ...body, message_id: soukMessageId(body.message_id) });
  }
  return t.app.inject({ method: step.method as 'GET', url: step.path, headers, ...(payload === undefined ? {} : { payload }) });
}

async function replay(rec: Recorded, t: TestSouk, ids: string[]): Promise<void> {
  for (const id of ids) {
    const step = rec.steps.get(id);
    assert.ok(step, `[${id}] is recorded`);
    const res = await send(rec, t, step);
    const expected = expectedReply(rec, id, viewerOf(rec, step));
    assert.equal(res.statusCode, expected.status, `[${id}] ${step.title}: ${res.body}`);
    const reply = normalise(JSON.parse(res.body), 'souk', `[${id}]`);
    const want = normalise(expected.body, 'recorded', `[${id}]`);
    assert.deepEqual(shapeOf(reply), shapeOf(want), `[${id}] ${step.title}: shape`);
    assert.deepEqual(reply, want, `[${id}] ${step.title}: values`);
  }
}

/** GET with a user's token, the reply parsed. */
async function getAs(t: TestSouk, userId: number, path: string): Promise<Json> {
  const res = await t.app.inject({ method: 'GET', url: `/wp-json/rtcl/v1/${path}`, headers: t.auth(userId) });
  assert.equal(res.statusCode, 200, res.body);
  return JSON.parse(res.body);
}

for (const gen of ['current', 'classic'] as const) {
  describe(`chat routes, the recorded transcript (CHAT_REPLY_FORMAT=${gen})`, () => {
    const rec = recorded(gen);

    it(`answers ${FOLDER[gen]}/03-chat.txt [025]-[068] as recorded, or as the spec decides`, async () => {
      const t = await startTestSouk(env(gen), rec.document);
      await replay(rec, t, CHAT_STEPS);
    });

    it('keeps message ids, conversation ids and unread counts in step with the recording', async () => {
      const t = await startTestSouk(env(gen), rec.document);
      const list = async (userId: number) => {
        const reply = await getAs(t, userId, 'my/chat');
        return ((gen === 'current' ? reply.data : reply) as Json[]).map((c) => [
          Number(c.con_id),
          Number(c.last_message_id),
          c.unread_count,
        ]);
      };
      let done = 0;
      const upTo = async (last: string) => {
        const end = CHAT_STEPS.indexOf(last) + 1;
        await replay(rec, t, CHAT_STEPS.slice(done, end));
        done = end;
      };
      await upTo('034');
      // [035]: bob's reply (recorded 2, Souk 3) is unread for alice.
      assert.deepEqual(await list(ALICE), [[1, 3, 1]]);
      // Bob has alice's two messages unread: the first and D6's "Hello again".
      assert.deepEqual(await list(BOB), [[1, 3, 2]]);
      await upTo('038');
      assert.deepEqual(await list(ALICE), [[1, 4, 0]]);
      await upTo('057');
      // [059]: alice left conversation 2; [062]: carol still sees it, unread.
      assert.deepEqual(await list(ALICE), [[1, 4, 0]]);
      assert.deepEqual(await list(4), [[2, 5, 1]]);
      await upTo('064');
      // [064]: a new conversation, 3, beside the one carol still sees.
      assert.deepEqual(await list(ALICE), [
        [3, 6, 0],
        [1, 4, 0],
      ]);
      assert.deepEqual(await list(4), [
        [3, 6, 1],
        [2, 5, 1],
      ]);
    });

    it('answers the chat probes of 05-ordering-probes.txt, after the transcript', async () => {
      const t = await startTestSouk(env(gen), rec.document);
      await replay(rec, t, [...CHAT_STEPS, ...PROBE_STEPS]);
      // [100] with a live token: a user who does not exist is not logged in (D4).
      const res = await t.app.inject({ method: 'GET', url: '/wp-json/rtcl/v1/my/chat', headers: t.auth(99) });
      assert.equal(res.statusCode, 403);
      assert.deepEqual(JSON.parse(res.body), { code: 'FORBIDDEN', message: 'You are not logged in.' });
    });
  });
}

describe('chat routes, the listing summary', () => {
  it("writes `amount` in D7's markup, as both originals did", async () => {
    for (const gen of ['current', 'classic'] as const) {
      const rec = recorded(gen);
      const t = await startTestSouk(env(gen), rec.document);
      await replay(rec, t, ['025', '026', '027']);
      const list = await getAs(t, ALICE, 'my/chat');
      const item = gen === 'current' ? list.data[0] : list[0];
      assert.equal(item.listing.amount, rec.listings.get(8).amount);
    }
  });
});
