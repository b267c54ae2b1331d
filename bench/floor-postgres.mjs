// The PostgreSQL floor: the toggle, the start of a conversation and the conversation read written as lean
// as this platform allows on Souk's own tables in the bench's schema (node:http and pg, nothing else;
// what every floor shares is in bench/floor-common.mjs), doing the database work Souk must do for them
// there and no other, each request in one message to the server (one round trip), whose statements run
// as one transaction (the simple protocol's rule):
//   toggle  the writer's row locked (FOR NO KEY UPDATE, as Souk's transaction.ts), then Souk's one toggle
//           statement (its listing check inside), the list after it written as text by the server; the
//           lock is a statement of its own, for the toggle's reads must see what the lock waited for;
//   start   the writer's row locked, then one statement: the listing and its owner checked, the open
//           conversation looked for, the conversation, the message and the conversation's last message
//           written (the id taken first, as Souk does) or, in an open one, the message appended, or a
//           retried temp_id's message found; its unread count;
//   read    the conversation with its unread count and listing version, its page of messages, their count
//           (asked for every page: in the same message it costs no round trip, where Souk asks only after a full page).
// Each statement is prepared once per connection and run by EXECUTE, as Souk's transaction-runner.ts
// joins them (the server parses a line and plans nothing). Like Souk, it keeps verified tokens, users
// (30 s) and 1,000 listing summaries while their version is unchanged: the start's statement sends the
// summary's columns only when the kept version is not the listing's. Its start reply and its read reply
// are Souk's bytes with the bench's settings (SITE_URL, the default listing address, price format and
// UTC times; the read's are checked against Souk's before its row), except a retried start, whose
// last message is the retried one. It has none of Souk's other duties (logs, metrics, rate limits,
// every error shape, validation of every field, moderation and blocks, the event log and the outboxes
// a start writes, NOTIFY), so Souk cannot reach it; how close Souk comes is the measure of its overhead.
// With FLOOR_DUTIES=1 (the floor-pg-duties-toggle and floor-pg-duties-start-new rows) it also does what
// Souk does for the same requests with the bench's settings (file: function):
//   - the rate limits and a start's abuse limits counted in memory, and a log line per request, as
//     bench/floor-toggle.mjs does (bench/floor-common.mjs rateLimits, abuseLimits, requestLog);
//   - the start's checks: the caller and the owner read FOR KEY SHARE, either closed refusing
//     (store/common/moderation.ts withOwnerLocked); the blocks either way and of the listing looked for
//     only when the caller's users.blocks says they are party to one (store/common/blocks.ts barsStart,
//     skipped as Souk skips it: postgres/transaction.ts reads the count with the writer's lock); for an
//     append, the owner's event_sequences row held before the count (postgres/repositories.ts holdLog);
//   - the start's writes: the events (Souk's one-statement logEvent, postgres/repositories.ts) and the
//     push outbox row (store/common/push.ts queuePush) of bench/floor-toggle.mjs, with payloads of
//     Souk's shape and size. The payloads hold the listing and its owner, which the floor knows once
//     the start's statement has answered: a start takes two messages, BEGIN, the lock and the start in
//     the first, the events, the push row and COMMIT in the second (Souk's takes four, and a NOTIFY
//     after the commit, left out here, as are metrics and presence).
// Usage, from the project root:
//   PORT=.. API_KEY=.. JWT_SECRET=.. DATABASE_URL=postgres://..?options=-c%20search_path%3D.. [SITE_URL=..] [API_PREFIX=..]
//   [DB_POOL_SIZE=10] [FLOOR_DUTIES=1 and Souk's settings] node bench/floor-postgres.mjs
import pg from 'pg';
import {
  bearerClaims,
  abuseLimits,
  bool,
  callerCheck,
  CANNOT_MESSAGE,
  DUTIES,
  errorBody as B,
  flags,
  keyCheck,
  listingEventJson,
  listingRequest,
  listingSummaryJson,
  messageRowJson,
  NOT_PERMITTED,
  numbered,
  pageParams,
  pages,
  QUEUE_PUSH,
  rateLimits,
  requestLog,
  serve,
  signedInUser,
  startEvents,
  time,
  totalOf,
  userEventJson,
  userSummaryJson,
} from './floor-common.mjs';

const SITE = (process.env.SITE_URL ?? 'https://souk.example').replace(/\/+$/, '');
const BASE = `${process.env.API_PREFIX ?? '/wp-json/rtcl'}/v1/`;
const KEY = Buffer.from(process.env.API_KEY ?? '');
const SECRET = process.env.JWT_SECRET ?? '';
const PERIOD_MS = 30_000;

// 64-bit ids and counts as numbers, as Souk reads them.
pg.types.setTypeParser(pg.types.builtins.INT8, Number);

// $1 the user, $2 the listing, $3 the time: Souk's statement (repositories.ts), the list as text.
const TOGGLE = `with listed as (select exists (select from listings where id = $2 and status <> 'trash') as ok),
  removed as (delete from favourites where user_id = $1 and listing_id = $2 and (select ok from listed) returning id),
  added as (insert into favourites (user_id, listing_id, added_at) select $1, $2, $3
    where (select ok from listed) and not exists (select from removed) on conflict (user_id, listing_id) do nothing returning id, listing_id)
  select listed.ok, (select string_agg(listing_id::text, ',' order by id) from (
    select id, listing_id from favourites where user_id = $1 and id not in (select id from removed)
    union all select id, listing_id from added) after) as ids
  from listed`;

// $1 the listing, $2 the caller, $3 the text, $4 the temp_id, $5 the time, $6 the version of the kept summary (0: none).
// With duties, also: the listing's status (its events' JSON), both users read FOR KEY SHARE, the caller
// closed, a block (looked for only when the caller's users.blocks counts one), the owner's event
// sequence held for an append, and the count of the caller's messages the owner has not read.
const startStatement = (duties) => `with listing as (
    select l.owner_id, l.version, l.version = $6 as kept,
      case when l.version = $6 then null else l.title end as title, case when l.version = $6 then null else l.slug end as slug,
      case when l.version = $6 then null else l.price end as price, case when l.version = $6 then null else l.images end as images,
      case when l.version = $6 then null else l.category end as category, case when l.version = $6 then null else l.location end as location,
      case when l.version = $6 then null else (select price_type from listing_details where listing_id = l.id) end as price_type${
        duties
          ? `, l.status, u.disabled <> 0 as closed, u.blocks <> 0 and (exists (select from user_blocks where blocker_id = $2 and blocked_id = l.owner_id)
        or exists (select from user_blocks where blocker_id = l.owner_id and blocked_id = $2)
        or exists (select from listing_blocks where user_id = $2 and listing_id = $1)) as blocked
    from listings l join users o on o.id = l.owner_id and o.disabled = 0 join users u on u.id = $2 where l.id = $1 and l.status <> 'trash'
    for key share of o, u),`
          : `
    from listings l join users o on o.id = l.owner_id and o.disabled = 0 where l.id = $1 and l.status <> 'trash'),`
      }
  open as (select c.id, c.created_at, c.updated_at, c.sender_review, c.recipient_review, c.invert_review from conversations c, listing
    where c.listing_id = $1 and c.sender_id = $2 and c.recipient_id = listing.owner_id and c.sender_delete = 0 and c.recipient_delete = 0
    for key share of c),
  retried as (select m.id, m.message, m.created_at from messages m, open
    where m.con_id = open.id and m.source_id = $2 and m.is_read in (0, 1) and m.temp_id = $4 order by m.id limit 1),
  first as (select nextval('messages_id_seq') as id from listing where listing.owner_id <> $2 and not exists (select from retried)${
    duties ? ' and not listing.closed and not listing.blocked' : ''
  }),${
    duties
      ? `
  held as (select e.seq from event_sequences e, listing where e.user_id = listing.owner_id and exists (select from open) for no key update of e),`
      : ''
  }
  created as (insert into conversations (listing_id, sender_id, recipient_id, sender_delete, recipient_delete, sender_review,
      recipient_review, invert_review, last_message_id, created_at, updated_at)
    select $1, $2, listing.owner_id, 0, 0, 0, 0, 0, first.id, $5, $5 from first, listing where not exists (select from open) returning id),
  appended as (insert into messages (id, con_id, source_id, message, type, attachments, meta, is_read, temp_id, created_at)
    select first.id, coalesce((select id from created), (select id from open)), $2, $3, 'text', null, null, 0, $4, $5 from first
    returning id),
  moved as (update conversations c set last_message_id = greatest(coalesce(c.last_message_id, 0), appended.id), updated_at = greatest(c.updated_at, $5)
    from open, appended where c.id = open.id)
  select listing.*, (select id from created) as created_id, (select id from appended) as message_id,
    open.id as open_id, open.created_at as open_created_at, open.updated_at as open_updated_at, open.sender_review, open.recipient_review,
    open.invert_review, retried.id as retried_id, retried.message as retried_text, retried.created_at as retried_at,
    (select count(*) from messages u where u.con_id = open.id and u.source_id = listing.owner_id and u.is_read = 0) as unread${
      duties
        ? `,
    (select count(*) from held) as held, (select count(*) from messages s where s.con_id = open.id and s.source_id = $2 and s.is_read = 0) as sent_unread`
        : ''
    }
  from (select) as one left join listing on true left join open on true left join retried on true`;
const START = startStatement(false);

// $1 the reader, $2 the conversation: its row, its listing's version, the messages to the reader still unread.
const CONVERSATION = `select c.id, c.listing_id, c.sender_id, c.recipient_id, c.sender_delete, c.recipient_delete, c.sender_review,
    c.recipient_review, c.invert_review, c.last_message_id, c.created_at, c.updated_at, l.id as l_id, l.version as l_version,
    (select count(*) from messages u where u.con_id = c.id and u.is_read = 0
      and u.source_id = (case when c.sender_id = $1 then c.recipient_id else c.sender_id end)) as unread
  from conversations c left join listings l on l.id = c.listing_id where c.id = $2`;

const PREPARE = [
  'prepare floor_lock(bigint) as select id from users where id = $1 for no key update',
  `prepare floor_toggle(bigint, bigint, bigint) as ${TOGGLE}`,
  `prepare floor_start(bigint, bigint, text, text, bigint, integer) as ${START}`,
  `prepare floor_conversation(bigint, bigint) as ${CONVERSATION}`,
  `prepare floor_messages(bigint, bigint, bigint, bigint) as select id, con_id, source_id, message, type, attachments, is_read, created_at
    from messages where con_id = $1 and id > $2 order by id desc limit $3 offset $4`,
  'prepare floor_count(bigint, bigint) as select count(*) as n from messages where con_id = $1 and id > $2',
  ...(DUTIES
    ? [
        `prepare floor_duty_start(bigint, bigint, text, text, bigint, integer) as ${startStatement(true)}`,
        // Souk's logEvent (postgres/repositories.ts): the user's next number and the event, in one statement.
        `prepare floor_event(bigint, text, text, bigint) as with numbered as (insert into event_sequences (user_id, seq) values ($1, 1)
          on conflict (user_id) do update set seq = event_sequences.seq + 1 returning user_id, seq)
          insert into events (user_id, seq, type, payload, created_at) select user_id, seq, $2, $3, $4 from numbered`,
        `prepare floor_push(bigint, bigint, text, bigint, bigint, bigint) as ${numbered(QUEUE_PUSH)}`,
      ]
    : []),
].join('; ');

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 10) });
pool.on('error', () => {});
// Queued before the request's query that made the connection: every connection has them before its first EXECUTE.
pool.on('connect', (client) =>
  client.query(PREPARE).catch((e) => {
    console.error(`floor-postgres: ${e.message}`);
    process.exit(1);
  }),
);
/** Runs one message of statements (the simple protocol: one transaction, unless it begins one); each statement's rows. */
async function message(text, on = pool) {
  const r = await on.query(text);
  return Array.isArray(r) ? r.map((x) => x.rows) : [r.rows];
}
/** A string as an SQL literal: dollar-quoted, so that nothing inside needs escaping, unless it holds the tag. */
const literal = (s) => (s.includes('$f') ? pg.escapeLiteral(s) : `$f$${s}$f$`);

// ---- users: one query for the missing ones, kept PERIOD_MS ----
const users = new Map();
const USERS = {
  name: 'floor_users',
  text: 'select id, login, name, email, phone, whatsapp, website, profile_picture, disabled from users where id = any($1)',
};
/** Each user's summary JSON and whether they are disabled (undefined: no such user); read `on` a connection held, or the pool's. */
async function usersOf(ids, on = pool) {
  const now = Date.now();
  const missing = ids.filter((id) => !(users.get(id)?.until > now));
  if (missing.length) {
    for (const u of (await on.query({ ...USERS, values: [missing] })).rows) {
      const event = DUTIES ? userEventJson(u) : undefined;
      users.set(u.id, { json: userSummaryJson(u), event, disabled: u.disabled !== 0, until: now + PERIOD_MS });
    }
  }
  return ids.map((id) => users.get(id));
}

// ---- listing summaries: 1,000, the least recently used dropped, each kept while its version is the listing's ----
const summaries = new Map();
/** Keeps the summary of listing `id` at `version` built from its row `l` (with duties, its events' JSON too). */
function keepSummary(id, version, l) {
  const json = listingSummaryJson(SITE, id, l);
  summaries.set(id, { version, json, ...(DUTIES && l.status !== undefined && { event: listingEventJson(id, l) }) });
  if (summaries.size > 1000) summaries.delete(summaries.keys().next().value);
  return json;
}
/** The kept summary of listing `id`, the most recently used from now on. */
function keptSummary(id) {
  const s = summaries.get(id);
  if (s === undefined) return undefined;
  summaries.delete(id);
  summaries.set(id, s);
  return s;
}
const LISTING = {
  name: 'floor_listing',
  text: 'select l.title, l.slug, l.price, l.images, l.category, l.location, d.price_type from listings l left join listing_details d on d.listing_id = l.id where l.id = $1',
};
/** The summary of listing `id` at `version` (null: the listing is gone), read when the kept one is older. */
async function summaryAt(id, version) {
  if (id === null) return 'null';
  const kept = keptSummary(id);
  if (kept?.version === version) return kept.json;
  return keepSummary(id, version, (await pool.query({ ...LISTING, values: [id] })).rows[0]);
}

// ---- the operations ----
const LISTING_NOT_FOUND = [400, B(400, 'BADREQUEST', 'Listing not found.')];
const FORBIDDEN = [403, NOT_PERMITTED];

/** Adds the listing to the caller's favourites, or removes it when there: the list after, oldest first. */
async function toggle(user, body) {
  const [, [r]] = await message(`execute floor_lock(${user}); execute floor_toggle(${user}, ${body.listing_id}, ${Date.now()})`);
  return r.ok ? [200, `[${r.ids ?? ''}]`] : LISTING_NOT_FOUND;
}

/** The start's reply, Souk's fields in its order; `m` the message answered, `c` the conversation. */
function startReply(user, body, r, summary, owner, c, m, tempId) {
  const text = JSON.stringify(m.text);
  return (
    `{"con_id":${c.id},"listing":${summary},"unread_count":${c.unread},"sender":${owner.senderJson},"recipient":${owner.json},` +
    `"listing_id":${body.listing_id},"sender_id":${user},"recipient_id":${r.owner_id},"sender_delete":false,"recipient_delete":false,` +
    `"last_message_id":${m.id},"sender_review":${bool(c.senderReview)},"recipient_review":${bool(c.recipientReview)},` +
    `"invert_review":${bool(c.invertReview)},"created_at":"${time(c.createdAt)}","updated_at":"${time(c.updatedAt)}","last_message":${text},` +
    `"last_message_created_at":"${time(m.createdAt)}","newMessage":{"message_id":${m.id},"con_id":${c.id},"source_id":${user},"message":${text},` +
    `"meta":null,"attachments":null,"type":"text","is_read":0,"created_at":"${time(m.createdAt)}","temp_id":${JSON.stringify(tempId ?? '')}}}`
  );
}

/** A start's temp_id (null when none), or its refusal. */
function startInput(body) {
  if (typeof body.text !== 'string' || body.text.trim() === '') return { refusal: [400, B(400, 'BADREQUEST', 'text is required')] };
  if (body.text.includes('\u0000')) return { refusal: [400, B(400, 'BADREQUEST', 'text has NUL')] };
  const tempId = body.temp_id == null ? null : String(body.temp_id);
  if (tempId?.includes('\u0000')) return { refusal: [400, B(400, 'BADREQUEST', 'temp_id has NUL')] };
  return { tempId };
}

/** The first message in a new conversation, appended to the caller's open one about the listing, or a retry's stored message. */
async function start(user, body) {
  const { refusal, tempId } = startInput(body);
  if (refusal) return refusal;
  const now = Date.now();
  const kept = keptSummary(body.listing_id);
  const [, [r]] = await message(
    `execute floor_lock(${user}); execute floor_start(${body.listing_id}, ${user}, ${literal(body.text)}, ` +
      `${tempId === null ? 'null' : literal(tempId)}, ${now}, ${kept?.version ?? 0})`,
  );
  return startAnswer(user, body, r, kept, now, tempId);
}

/**
 * The start's reply from its statement's row `r` (with duties, refused when closed or blocked); `kept`:
 * the summary kept before it; `on`: the connection its transaction holds, if any.
 */
async function startAnswer(user, body, r, kept, now, tempId, on = pool) {
  if (r.owner_id === null) return LISTING_NOT_FOUND;
  if (r.owner_id === user) return FORBIDDEN;
  if (r.closed || r.blocked) return [403, CANNOT_MESSAGE];
  const summary = r.kept ? kept.json : keepSummary(body.listing_id, r.version, r);
  const [sender, recipient] = await usersOf([user, r.owner_id], on);
  const owner = { json: recipient.json, senderJson: sender.json };
  if (r.created_id !== null) {
    const c = { id: r.created_id, unread: 0, createdAt: now, updatedAt: now };
    return [200, startReply(user, body, r, summary, owner, c, { id: r.message_id, text: body.text, createdAt: now }, tempId)];
  }
  const c = {
    id: r.open_id,
    unread: r.unread,
    createdAt: r.open_created_at,
    updatedAt: r.retried_id === null ? Math.max(r.open_updated_at, now) : r.open_updated_at,
    senderReview: r.sender_review,
    recipientReview: r.recipient_review,
    invertReview: r.invert_review,
  };
  const m =
    r.retried_id === null
      ? { id: r.message_id, text: body.text, createdAt: now }
      : { id: r.retried_id, text: r.retried_text, createdAt: r.retried_at };
  return [200, startReply(user, body, r, summary, owner, c, m, tempId)];
}

const startPlaces = DUTIES && abuseLimits();

/**
 * The start with Souk's duties, in two messages of one transaction on one connection: BEGIN, the
 * lock and the start's statement with its checks; then the events and the push row the start
 * stored a message for, and COMMIT. Within the sender's abuse limits, places given back unless used.
 */
async function startWithDuties(user, body) {
  const { refusal, tempId } = startInput(body);
  if (refusal) return refusal;
  const places = startPlaces(user);
  if (places.refusal) return places.refusal;
  const now = Date.now();
  // A kept summary without the events' JSON (read by the lean statement) is not kept here.
  const kept = keptSummary(body.listing_id);
  const version = kept?.event === undefined ? 0 : kept.version;
  const client = await pool.connect();
  let stored = { conversation: false, message: false };
  try {
    const [, , [r]] = await message(
      `begin; execute floor_lock(${user}); execute floor_duty_start(${body.listing_id}, ${user}, ${literal(body.text)}, ` +
        `${tempId === null ? 'null' : literal(tempId)}, ${now}, ${version})`,
      client,
    );
    // The users' read, when not kept, on this connection: the pool's could all be held by starts waiting for one.
    const reply = await startAnswer(user, body, r, kept, now, tempId, client);
    if (r.message_id !== null) {
      stored = { conversation: r.created_id !== null, message: true };
      const [sender, owner] = await usersOf([user, r.owner_id], client);
      const conId = r.created_id ?? r.open_id;
      const { events, push } = startEvents({
        conId,
        created: r.created_id !== null,
        listingId: body.listing_id,
        listingJson: keptSummary(body.listing_id).event,
        sender: { id: user, json: sender.event },
        owner: { id: r.owner_id, json: owner.event },
        messageId: r.message_id,
        text: body.text,
        tempId,
        at: now,
        unread: r.created_id !== null ? 1 : r.sent_unread + 1,
      });
      const writes = events.flatMap(([type, payload]) => [
        `execute floor_event(${r.owner_id}, ${literal(type)}, ${literal(payload)}, ${now})`,
        ...(type === 'message.new'
          ? [`execute floor_push(${r.owner_id}, ${r.message_id}, ${literal(push)}, ${now}, ${now}, ${r.owner_id})`]
          : []),
      ]);
      await message([...writes, 'commit'].join('; '), client);
    } else await client.query('commit');
    return reply;
  } catch (e) {
    await client.query('rollback').catch(() => {});
    throw e;
  } finally {
    client.release();
    places.settle(stored.conversation, stored.message);
  }
}

const LAST = { name: 'floor_last', text: 'select message, created_at from messages where id = $1' };

/** The conversation's last message: the page's first when it is, else read. */
async function lastOf(c, rows) {
  if (c.last_message_id === null) return undefined;
  if (rows[0]?.id === c.last_message_id) return rows[0];
  return (await pool.query({ ...LAST, values: [c.last_message_id] })).rows[0];
}

const messageRow = (m) => messageRowJson(m.id, m.con_id, m.source_id, m.message, m.type, m.attachments, m.is_read, m.created_at);

/** GET my/chat/conversation: the conversation, its messages newest first, their pagination; for a participant who has not left it. */
async function read(user, p) {
  const offset = (p.page - 1) * p.per_page;
  const [[c], rows, [count]] = await message(
    `execute floor_conversation(${user}, ${p.con_id}); execute floor_messages(${p.con_id}, ${p.after_id}, ${p.per_page}, ${offset}); ` +
      `execute floor_count(${p.con_id}, ${p.after_id})`,
  );
  if (!c || !((c.sender_id === user && !c.sender_delete) || (c.recipient_id === user && !c.recipient_delete))) return FORBIDDEN;
  const [summary, [sender, recipient], last] = await Promise.all([
    summaryAt(c.l_id, c.l_version),
    usersOf([c.sender_id, c.recipient_id]),
    lastOf(c, rows),
  ]);
  const total = totalOf(rows.length, offset, p.per_page, () => count.n);
  return [
    200,
    `{"con_id":${c.id},"listing":${summary},"unread_count":${c.unread},"sender":${sender.json},"recipient":${recipient.json},${flags(c)},` +
      `"last_message":${last ? JSON.stringify(last.message) : 'null'},"last_message_created_at":${last ? `"${time(last.created_at)}"` : 'null'},` +
      `"messages":[${rows.map(messageRow).join(',')}],"pagination":${pages(total, p.per_page, p.page)}}`,
  ];
}

// ---- the checks every request passes: API key, Bearer JWT (HS256, exp, cached), the user ----
const callerOf = signedInUser(bearerClaims(SECRET), usersOf);

const limits = DUTIES ? rateLimits(process.env.API_KEY ?? '') : undefined;

const ROUTES = new Set(['POST my/favourites', 'POST my/chat/conversation', 'GET my/chat/conversation']);

/** The request's reply: the refusal it gets first (docs/decisions.md D4's order, without the REST switch), or its operation's. */
async function handle(req, raw) {
  const [pathname, query] = req.url.split('?');
  const route = pathname.startsWith(BASE) ? `${req.method} ${pathname.slice(BASE.length)}` : '';
  if (!ROUTES.has(route)) return [404, B(404, 'NOT_FOUND', 'no route')];
  const refusal = keyCheck(req, KEY, limits);
  if (refusal) return refusal;
  const user = await callerOf(req.headers.authorization);
  const unknown = callerCheck(req, user, limits);
  if (unknown) return unknown;
  if (req.method === 'GET') {
    const p = pageParams(query, 50);
    return p?.con_id ? read(user, p) : [400, B(400, 'BADREQUEST', 'bad parameter')];
  }
  const { refusal: bad, body } = listingRequest(raw);
  if (bad) return bad;
  if (route === 'POST my/favourites') return toggle(user, body);
  return DUTIES ? startWithDuties(user, body) : start(user, body);
}

serve('floor-postgres', handle, () => pool.end(), DUTIES ? await requestLog(BASE) : undefined);
