// The write floor: POST my/favourites (the toggle) and POST my/chat/conversation (the start) written as
// lean as this platform allows (node:http, node:sqlite, one transaction per event-loop turn for every
// request of that turn), with the checks the contract asks for (API key, Bearer JWT HS256 with exp, the
// user exists, the listing exists and is not in the trash, not one's own listing) and its replies
// (docs/interface.md): the caller's favourites after the change; a new conversation, or the open one
// appended to, with a retried temp_id answered from the stored message (docs/decisions.md D5, D6).
// Like Souk, it keeps verified tokens, and makes each user's and listing's JSON once.
// It has none of Souk's other duties (logs, metrics, rate limits, every error shape, PostgreSQL, the
// validation of every field, files, the listing summary's current price markup), so Souk cannot reach
// it; how close Souk comes is the measure of its overhead. bench/floor.ts starts it for the floor-toggle
// and floor-start-new rows, on the bench's users and listings, after adding their favourites through it.
// With FLOOR_DUTIES=1 (the floor-duties-toggle and floor-duties-start-new rows) it also does what Souk
// does for the same requests with the bench's settings, each as Souk does it (file: function):
//   - rate limits: counted in memory, as src/http/plugins/rate-limit.ts rateLimits (no REDIS_URL): the
//     address's failed authentications peeked first and a failure counted (checkAddress, authFailed),
//     then the API key and the user counted (checkKey, checkUser; RATE_LIMIT_PER_KEY, RATE_LIMIT_PER_USER);
//   - abuse limits of a start: counted in memory, as src/http/plugins/abuse-limits.ts startPlaces
//     (MESSAGES_PER_MINUTE, NEW_CONVERSATIONS_PER_HOUR): places taken before, given back unless used;
//   - the start's checks in its transaction, Souk's statements on tables of Souk's shape and indexes:
//     the two users' `disabled` (store/common/moderation.ts participants, via domain/moderation.ts
//     closedParticipant) and the blocks either way and of the listing (store/common/blocks.ts barsStart);
//   - the start's writes in its transaction, Souk's statements: for the owner, conversation.new
//     (a conversation created), message.new, the push outbox row (written only for a user with a
//     device: none has one here) and conversation.unread, each event numbered in event_sequences
//     (store/common/events.ts recordEvents, logEventInTwoStatements; store/common/push.ts queuePush;
//     domain/chat/conversation.ts startConversation, chat/events.ts recordNewMessage), payloads of
//     Souk's shape and size; the append's unread count read after its message (chat/events.ts appendMessage);
//   - a log line per request at LOG_LEVEL (info), pino's JSON as Fastify's logger writes Souk's
//     (src/http/plugins/logging.ts logRequest), to stdout.
// Left out: metrics, presence (written once a minute per user, outside the transaction), the
// X-Request-Id reply header, Souk's user and listing caches (the floor keeps its users in memory and
// reads its listing row, events' JSON included, on every start).
// Usage:
//   PORT=.. API_KEY=.. JWT_SECRET=.. [SITE_URL=..] [FLOOR_DUTIES=1 and Souk's settings] node bench/floor-toggle.mjs DATA.json
// DATA.json is an import document ({users, listings}); the database goes in a new folder of TMPDIR.
import http from 'node:http';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  abuseLimits,
  bearerClaims,
  callerCheck,
  CANNOT_MESSAGE,
  databaseSync,
  DUTIES,
  errorBody as B,
  keyCheck,
  listingEventJson,
  listingRequest,
  NOT_PERMITTED,
  QUEUE_PUSH,
  rateLimits,
  requestLog,
  startEvents,
  userEventJson,
} from './floor-common.mjs';

const DatabaseSync = databaseSync();

const { users, listings } = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const SITE = process.env.SITE_URL || 'https://m.example';
const KEY = Buffer.from(process.env.API_KEY ?? '');
const SECRET = process.env.JWT_SECRET ?? '';

const db = new DatabaseSync(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'floor-toggle-')), 'floor.db'));
// Souk's journal, durability and page cache (DB_CACHE_MB, 16 MB by default).
db.exec('pragma journal_mode = WAL; pragma synchronous = NORMAL; pragma cache_size = -16384');
// A listing keeps its summary as JSON text: the start's reply embeds it as it is.
// One open conversation per (listing, sender, recipient); a deleted one no longer counts.
// With duties, a listing also keeps its JSON as Souk's events hold it.
db.exec(`
  create table listings (id integer primary key, owner_id integer not null, status text not null, summary text not null${DUTIES ? ', event text not null' : ''});
  create table favourites (id integer primary key, user_id integer not null, listing_id integer not null, added_at integer not null);
  create unique index favourites_user_listing on favourites (user_id, listing_id);
  create table conversations (id integer primary key, listing_id integer, sender_id integer, recipient_id integer,
    sender_delete integer default 0, recipient_delete integer default 0, last_message_id integer, created_at integer, updated_at integer);
  create unique index conversations_open on conversations (listing_id, sender_id, recipient_id)
    where sender_delete = 0 and recipient_delete = 0;
  create table messages (id integer primary key, con_id integer, source_id integer, text text, is_read integer default 0,
    temp_id text, created_at integer);
  create index messages_conversation on messages (con_id, source_id, is_read, temp_id);
`);
// The duties' tables, as Souk's migrations make them on SQLite (011 events, 013 push, 017 blocks).
if (DUTIES)
  db.exec(`
  create table users (id integer primary key, disabled integer default 0 not null, blocks integer default 0 not null);
  create table user_blocks (id integer primary key autoincrement, blocker_id integer not null, blocked_id integer not null,
    created_at integer not null, constraint user_blocks_pair unique (blocker_id, blocked_id));
  create index user_blocks_by_blocked on user_blocks (blocked_id, blocker_id);
  create table listing_blocks (id integer primary key autoincrement, user_id integer not null, listing_id integer not null,
    created_at integer not null, constraint listing_blocks_pair unique (user_id, listing_id));
  create index listing_blocks_by_listing on listing_blocks (listing_id);
  create table event_sequences (user_id integer primary key, seq integer not null);
  create table events (user_id integer not null, seq integer not null, type text not null, payload text not null,
    created_at integer not null, constraint events_pkey primary key (user_id, seq));
  create index events_by_time on events (created_at);
  create table push_devices (token text primary key, user_id integer not null, events text not null, registered_at integer not null,
    session text default '' not null, session_expires_at integer default 0 not null);
  create index push_devices_by_user on push_devices (user_id, registered_at);
  create table push_outbox (id integer primary key autoincrement, user_id integer not null, message_id integer not null,
    payload text not null, created_at integer not null, status text not null, attempts integer not null, next_attempt_at integer not null,
    last_error text, reached text default '[]' not null, constraint push_outbox_once unique (user_id, message_id));
  create index push_outbox_due on push_outbox (status, next_attempt_at);
  create index push_outbox_by_time on push_outbox (created_at);
`);

/** The price with two decimals and thousands separated by ",", or "" when there is none. */
const money = (price) =>
  price === '' ? '' : Number(price).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** The listing summary (docs/interface.md, "Listing summary"), with the plugin's older price markup. */
function summaryOf(l) {
  const amount = l.price
    ? `<span class="rtcl-price-amount amount"><span class="rtcl-price-currencySymbol">&#36;</span>${money(l.price)}</span>`
    : '';
  return (
    `{"id":${l.id},"title":${JSON.stringify(l.title)},"url":${JSON.stringify(`${SITE}/listing/${l.slug ?? l.id}/`)},` +
    `"images":${JSON.stringify(l.images ?? [])},"amount":${JSON.stringify(amount)},"raw_price":${JSON.stringify(l.price ?? '')},` +
    `"location":${JSON.stringify(l.location ?? [])},"category":${JSON.stringify(l.category ?? [])}}`
  );
}

/** The user summary (docs/interface.md, "User summary"; D8's picture when none is set). */
function userSummaryOf(u) {
  const md5 = crypto
    .createHash('md5')
    .update((u.email ?? '').trim().toLowerCase())
    .digest('hex');
  return JSON.stringify({
    id: u.id,
    name: u.name || u.login,
    email: u.email ?? '',
    phone: u.phone ?? '',
    whatsapp: u.whatsapp ?? '',
    website: u.website ?? '',
    profile_picture: u.profile_picture || `https://secure.gravatar.com/avatar/${md5}?s=96&d=mm&r=g`,
  });
}

const insertListing = db.prepare(`insert into listings values (?, ?, ?, ?${DUTIES ? ', ?' : ''})`);
const insertUser = DUTIES && db.prepare('insert into users (id) values (?)');
/** The listing's JSON as Souk's events hold it: its columns' JSON text, as the import document's arrays were. */
const listingEvent = (l) =>
  listingEventJson(l.id, {
    ...l,
    status: l.status ?? 'publish',
    images: JSON.stringify(l.images ?? []),
    category: JSON.stringify(l.category ?? []),
    location: JSON.stringify(l.location ?? []),
  });
db.exec('begin');
for (const l of listings) insertListing.run(l.id, l.owner_id, l.status ?? 'publish', summaryOf(l), ...(DUTIES ? [listingEvent(l)] : []));
if (DUTIES) for (const u of users) insertUser.run(u.id);
db.exec('commit');
const userSummaries = new Map(users.map((u) => [u.id, userSummaryOf(u)]));
const userEvents = DUTIES && new Map(users.map((u) => [u.id, userEventJson(u)]));

const q = {
  status: db.prepare('select status from listings where id = ?'),
  listing: db.prepare('select owner_id, status, summary from listings where id = ?'),
  removeFavourite: db.prepare('delete from favourites where user_id = ? and listing_id = ?'),
  addFavourite: db.prepare('insert into favourites (user_id, listing_id, added_at) values (?, ?, ?)'),
  // The list as the reply's JSON array, made by SQLite.
  favourites: db.prepare('select json_group_array(listing_id order by id) as ids from favourites where user_id = ?'),
  open: db.prepare(
    'select * from conversations where listing_id = ? and sender_id = ? and recipient_id = ? and sender_delete = 0 and recipient_delete = 0',
  ),
  createConversation: db.prepare(
    'insert into conversations (listing_id, sender_id, recipient_id, created_at, updated_at) values (?, ?, ?, ?, ?)',
  ),
  retried: db.prepare('select * from messages where con_id = ? and source_id = ? and temp_id = ?'),
  append: db.prepare('insert into messages (con_id, source_id, text, temp_id, created_at) values (?, ?, ?, ?, ?)'),
  moveLast: db.prepare('update conversations set last_message_id = ?, updated_at = ? where id = ?'),
  unread: db.prepare('select count(*) as n from messages where con_id = ? and source_id = ? and is_read = 0'),
  begin: db.prepare('begin immediate'),
  commit: db.prepare('commit'),
};

// The duties' statements: Souk's own text (store/common/moderation.ts, blocks.ts, events.ts, push.ts).
const d = DUTIES && {
  listing: db.prepare('select owner_id, status, summary, event from listings where id = ?'),
  participants: db.prepare('select id, disabled from users where id = ? union all select id, disabled from users where id = ?'),
  barsStart: db.prepare(
    'select id from user_blocks where blocker_id = ? and blocked_id = ? union all select id from user_blocks where blocker_id = ? and blocked_id = ? ' +
      'union all select id from listing_blocks where user_id = ? and listing_id = ?',
  ),
  nextSeq: db.prepare(
    'insert into event_sequences (user_id, seq) values (?, 1) on conflict (user_id) do update set seq = event_sequences.seq + 1',
  ),
  insertEvent: db.prepare(
    'insert into events (user_id, seq, type, payload, created_at) select user_id, seq, ? as type, ? as payload, ? as created_at from event_sequences where user_id = ?',
  ),
  queuePush: db.prepare(QUEUE_PUSH),
};

/** One event in the user's log, numbered in two statements as Souk's SQLite store does. */
function logEvent(userId, type, payload, at) {
  d.nextSeq.run(userId);
  d.insertEvent.run(type, payload, at, userId);
}

/** What Souk logs for the owner when a start stores its message (`c.created`: with its conversation); `unread`: the owner's count after it. */
function logStart(c, l, user, m, unread) {
  const at = m.created_at;
  const owner = l.owner_id;
  const { events, push } = startEvents({
    conId: c.id,
    created: c.created,
    listingId: c.listing_id,
    listingJson: l.event,
    sender: { id: user, json: userEvents.get(user) },
    owner: { id: owner, json: userEvents.get(owner) },
    messageId: m.id,
    text: m.text,
    tempId: m.temp_id || null,
    at,
    unread,
  });
  for (const [type, payload] of events) {
    logEvent(owner, type, payload, at);
    if (type === 'message.new') d.queuePush.run(owner, m.id, push, at, at, owner);
  }
}

/** The start's checks in its transaction: the two users open, no block either way nor of the listing; the refusal, else undefined. */
function startRefusal(user, l, listingId) {
  const closed = d.participants.all(user, l.owner_id).some((u) => u.disabled !== 0);
  if (closed) return [403, CANNOT_MESSAGE];
  if (d.barsStart.all(user, l.owner_id, l.owner_id, user, user, listingId).length > 0) return [403, CANNOT_MESSAGE];
  return undefined;
}

const LISTING_NOT_FOUND = [400, B(400, 'BADREQUEST', 'Listing not found.')];

const claimsOf = bearerClaims(SECRET);
/** The caller's user id, 0 when the token is not one of ours, has expired, or names no user. */
function callerOf(auth) {
  const claims = claimsOf(auth);
  return claims && userSummaries.has(claims.sub) ? claims.sub : 0;
}

/** `YYYY-MM-DD HH:MM:SS` in UTC (SITE_TIMEZONE's default). */
const time = (ms) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** Adds the listing to the caller's favourites, or removes it when there: the list after the change, oldest first (D5). */
function toggle({ user, body }) {
  const l = q.status.get(body.listing_id);
  if (!l || l.status === 'trash') return LISTING_NOT_FOUND;
  if (q.removeFavourite.run(user, body.listing_id).changes === 0) q.addFavourite.run(user, body.listing_id, Date.now());
  return [200, q.favourites.get(user).ids];
}

/** The first message in a new conversation, or appended to the caller's open one about the listing (D6); what it stored goes in `job.stored`. */
function startConversation(job) {
  const { user, body } = job;
  if (typeof body.text !== 'string' || body.text.trim() === '') return [400, B(400, 'BADREQUEST', 'text is required')];
  const l = (DUTIES ? d.listing : q.listing).get(body.listing_id);
  if (!l || l.status === 'trash') return LISTING_NOT_FOUND;
  if (l.owner_id === user) return [403, NOT_PERMITTED];
  const refused = DUTIES && startRefusal(user, l, body.listing_id);
  if (refused) return refused;
  const now = Date.now();
  const tempId = body.temp_id == null ? '' : String(body.temp_id);
  let c = q.open.get(body.listing_id, user, l.owner_id);
  const created = !c;
  if (DUTIES) job.stored = { conversation: created, message: false };
  if (created) {
    const id = Number(q.createConversation.run(body.listing_id, user, l.owner_id, now, now).lastInsertRowid);
    c = { id, created_at: now, created, listing_id: body.listing_id };
  }
  // A retry (same sender, same temp_id, same conversation) gets the message stored the first time.
  let m = !created && tempId ? q.retried.get(c.id, user, tempId) : undefined;
  if (!m) {
    const id = Number(q.append.run(c.id, user, body.text, tempId, now).lastInsertRowid);
    q.moveLast.run(id, now, c.id);
    m = { id, text: body.text, created_at: now, temp_id: tempId };
    if (DUTIES) {
      job.stored.message = true;
      logStart(c, l, user, m, created ? 1 : q.unread.get(c.id, user).n);
    }
  }
  const unread = created ? 0 : q.unread.get(c.id, l.owner_id).n;
  const text = JSON.stringify(m.text);
  const message =
    `{"message_id":${m.id},"con_id":${c.id},"source_id":${user},"message":${text},"meta":null,"attachments":null,"type":"text",` +
    `"is_read":0,"created_at":"${time(m.created_at)}","temp_id":${JSON.stringify(m.temp_id ?? '')}}`;
  return [
    200,
    `{"con_id":${c.id},"listing":${l.summary},"unread_count":${unread},"sender":${userSummaries.get(user)},` +
      `"recipient":${userSummaries.get(l.owner_id)},"listing_id":${body.listing_id},"sender_id":${user},"recipient_id":${l.owner_id},` +
      `"sender_delete":false,"recipient_delete":false,"last_message_id":${m.id},"sender_review":false,"recipient_review":false,` +
      `"invert_review":false,"created_at":"${time(c.created_at)}","updated_at":"${time(now)}","last_message":${text},` +
      `"last_message_created_at":"${time(m.created_at)}","newMessage":${message}}`,
  ];
}

const startPlaces = DUTIES && abuseLimits();
/** The start; with duties, within the sender's abuse limits, its places given back unless used. */
function start(job) {
  if (!DUTIES) return startConversation(job);
  const places = startPlaces(job.user);
  if (places.refusal) return places.refusal;
  const reply = startConversation(job);
  places.settle(job.stored?.conversation === true, job.stored?.message === true);
  return reply;
}

// Group commit: the requests that arrive in one event-loop turn share one transaction, so one fsync.
let queue = [];
function commitQueue() {
  const jobs = queue;
  queue = [];
  q.begin.run();
  const replies = jobs.map((job) => job.operation(job));
  q.commit.run();
  jobs.forEach((job, i) => job.send(...replies[i]));
}

const limits = DUTIES ? rateLimits(process.env.API_KEY ?? '') : undefined;
const log = DUTIES && (await requestLog(`${process.env.API_PREFIX ?? '/wp-json/rtcl'}/v1/`));

/** The request's caller and body, or the refusal it gets first (docs/decisions.md D4's order, without the REST switch). */
function admit(req, raw) {
  const refused = keyCheck(req, KEY, limits);
  if (refused) return { refusal: refused };
  const user = callerOf(req.headers.authorization);
  const unknown = callerCheck(req, user, limits);
  if (unknown) return { refusal: unknown };
  const { refusal, body } = listingRequest(raw);
  return refusal ? { refusal } : { user, body };
}

http
  .createServer((req, res) => {
    const started = performance.now();
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const send = (code, body) => {
        res.writeHead(code, { 'content-type': 'application/json; charset=utf-8' });
        res.end(body);
        if (log) log(req, code, started);
      };
      const { refusal, user, body } = admit(req, Buffer.concat(chunks).toString());
      if (refusal) return send(...refusal);
      if (queue.length === 0) setImmediate(commitQueue);
      queue.push({ operation: req.url.endsWith('/my/chat/conversation') ? start : toggle, user, body, send });
    });
  })
  .listen(+process.env.PORT, process.env.HOST ?? '127.0.0.1');
// A clean exit on SIGTERM, so that node --cpu-prof writes its profile.
process.on('SIGTERM', () => {
  db.close();
  process.exit(0);
});
