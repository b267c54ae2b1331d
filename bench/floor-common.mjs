// What the floors (bench/floor-*.mjs) share, so that each writes only its own database work: the checks
// every request passes (the API key, a Bearer JWT HS256 with exp, verified tokens kept), the contract's
// error shape, the wire's times, price markup, user and listing summaries and a conversation read's
// parts, the HTTP server around an operation (bench/floor-mysql.mjs, bench/floor-postgres.mjs), and
// node:sqlite, the SQLite engine Souk uses (bench/floor-toggle.mjs, bench/floor-reads.mjs).
import http from 'node:http';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';

/**
 * node:sqlite's DatabaseSync, loaded without Node.js 22's ExperimentalWarning (the floors print
 * nothing; src/store/sqlite/driver.ts does the same), any other warning still printed.
 */
export function databaseSync() {
  const emitWarning = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    if (!String(warning).startsWith('SQLite is an experimental feature')) emitWarning.call(process, warning, ...rest);
  };
  try {
    return createRequire(import.meta.url)('node:sqlite').DatabaseSync;
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** The statement giving each row as an array of its columns' values (Node.js 22.16 and newer; copied before). */
export function arrays(statement) {
  if (statement.setReturnArrays) {
    statement.setReturnArrays(true);
    return statement;
  }
  return { all: (...params) => statement.all(...params).map((row) => Object.values(row)) };
}

/** The contract's error body. */
export const errorBody = (code, error, message) => JSON.stringify({ status: 'error', error, code: String(code), error_message: message });
export const NOT_LOGGED_IN = '{"code":"FORBIDDEN","message":"You are not logged in."}';
export const NOT_PERMITTED = '{"code":"FORBIDDEN","message":"You are not permitted to access this conversation."}';

/** The refusal of a request whose X-API-KEY is missing or is not `key` (a Buffer), else undefined. */
export function keyRefusal(header, key) {
  if (!header) return [401, errorBody(401, 'MISSING_X_API_KEY_HEADER', 'missing')];
  const k = Buffer.from(header);
  if (k.length !== key.length || !crypto.timingSafeEqual(k, key)) return [401, errorBody(401, 'INVALID_API_KEY', 'invalid')];
  return undefined;
}

/**
 * The claims ({sub, exp}) of an Authorization header's Bearer token signed with `secret` (HS256) and
 * not expired, else undefined. A verified token is kept by its text, as Souk keeps them.
 */
export function bearerClaims(secret) {
  const tokens = new Map();
  return (auth) => {
    if (!auth || !auth.startsWith('Bearer ')) return undefined;
    const token = auth.slice(7);
    let claims = tokens.get(token);
    if (!claims) {
      const [header, payload, signature] = token.split('.');
      if (!signature || crypto.createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url') !== signature)
        return undefined;
      const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
      claims = { sub: Number(decoded.sub), exp: decoded.exp };
      tokens.set(token, claims);
    }
    return claims.exp * 1000 > Date.now() ? claims : undefined;
  };
}

/** The caller's user id, 0 when the token is not one of ours, has expired, or names no user who may sign in (`usersOf(ids)`: each one's {disabled}). */
export const signedInUser = (claimsOf, usersOf) => async (auth) => {
  const claims = claimsOf(auth);
  if (!claims) return 0;
  const [u] = await usersOf([claims.sub]);
  return u && !u.disabled ? claims.sub : 0;
};

/** A write's JSON body, whose listing_id is a positive integer; else the refusal it gets. */
export function listingRequest(raw) {
  let body;
  try {
    body = JSON.parse(raw);
  } catch {
    return { refusal: [400, errorBody(400, 'BADREQUEST', 'bad json')] };
  }
  if (!Number.isSafeInteger(body?.listing_id) || body.listing_id < 1) return { refusal: [400, errorBody(400, 'BADREQUEST', 'listing_id')] };
  return { body };
}

const times = new Map();
/** `YYYY-MM-DD HH:MM:SS`, UTC (SITE_TIMEZONE's default), of the second; each second formatted once. */
export function time(ms) {
  const s = Math.floor(ms / 1000);
  let t = times.get(s);
  if (t === undefined) {
    if (times.size > 200_000) times.clear();
    times.set(s, (t = new Date(s * 1000).toISOString().slice(0, 19).replace('T', ' ')));
  }
  return t;
}

export const md5 = (email) => crypto.createHash('md5').update(email.trim().toLowerCase()).digest('hex');

/** A users row's summary (docs/interface.md, "User summary"; D8's picture when none is set), as JSON text. */
export const userSummaryJson = (r) =>
  JSON.stringify({
    id: r.id,
    name: r.name || r.login,
    email: r.email,
    phone: r.phone,
    whatsapp: r.whatsapp,
    website: r.website,
    profile_picture: r.profile_picture || `https://secure.gravatar.com/avatar/${md5(r.email)}?s=96&d=mm&r=g`,
  });

/** The price as the plugin's markup with the default format ($ on the left, 2 decimals, "," and "."), rounded half up in decimal. */
function amount(raw, priceType) {
  if (raw === '') return '';
  const [whole = '0', fraction = ''] = raw.split('.');
  const digits = fraction.padEnd(3, '0');
  const cents = BigInt(whole + digits.slice(0, 2)) + (digits.charCodeAt(2) >= 53 ? 1n : 0n);
  const text = `${(cents / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${(cents % 100n).toString().padStart(2, '0')}`;
  const type = (priceType || 'fixed').replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#039' }[c]};`);
  return `<div class="rtcl-price price-type-${type}"><span class="rtcl-price-amount amount"><bdi><span class="rtcl-price-currencySymbol">&#36;</span>${text}</bdi></span></div>`;
}

/** The listing summary of listing `id` from its row `l` (Souk's columns, its details' price_type), at the default listing address of `site`. */
export const listingSummaryJson = (site, id, l) =>
  `{"id":${id},"title":${JSON.stringify(l.title)},"url":${JSON.stringify(`${site}/listing/${encodeURIComponent(l.slug)}/`)},` +
  `"images":${l.images},"amount":${JSON.stringify(amount(l.price, l.price_type ?? ''))},"raw_price":${JSON.stringify(l.price)},` +
  `"location":${l.location},"category":${l.category}}`;

// ---- a conversation read's parts (GET my/chat/conversation, GET my/chat) ----
export const bool = (n) => (n ? 'true' : 'false');
/** A conversation row's own columns and times. */
export const flags = (c) =>
  `"listing_id":${c.listing_id},"sender_id":${c.sender_id},"recipient_id":${c.recipient_id},"sender_delete":${bool(c.sender_delete)},` +
  `"recipient_delete":${bool(c.recipient_delete)},"last_message_id":${c.last_message_id ?? 0},"sender_review":${bool(c.sender_review)},` +
  `"recipient_review":${bool(c.recipient_review)},"invert_review":${bool(c.invert_review)},"created_at":"${time(c.created_at)}","updated_at":"${time(c.updated_at)}"`;
export const pages = (total, perPage, page) =>
  `{"total":${total},"per_page":${perPage},"current_page":${page},"total_pages":${Math.ceil(total / perPage)}}`;
/** How many in all: a short page tells, unless it is empty past the first (then it is counted). */
export const totalOf = (found, offset, perPage, count) => (found < perPage && (found > 0 || offset === 0) ? offset + found : count());
/** A message of a read's page, every value a string, as the original's rows. */
export const messageRowJson = (id, conId, source, text, type, attachments, isRead, at) =>
  `{"message_id":"${id}","con_id":"${conId}","source_id":"${source}","type":${JSON.stringify(type)},"message":${JSON.stringify(text)},` +
  `"attachments":${attachments === null ? 'null' : JSON.stringify(JSON.stringify(JSON.parse(attachments)))},"meta":null,` +
  `"is_read":"${isRead ? 1 : 0}","created_at":"${time(at)}"}`;

const NUMBER = /^[1-9]\d{0,8}$/;
/** The query's page, per_page, after_id and con_id, each a positive integer (after_id may be 0); null when one is not. */
export function pageParams(query, perPage) {
  const p = { page: 1, per_page: perPage, after_id: 0, con_id: 0 };
  for (const pair of query ? query.split('&') : []) {
    const [name, value] = pair.split('=');
    if (!(name in p)) continue;
    if (!NUMBER.test(value) && !(name === 'after_id' && value === '0')) return null;
    p[name] = Number(value);
  }
  return p.per_page <= 100 ? p : null;
}

/**
 * Serves `handle(req, body)`, a promise of [status, body], on PORT and HOST (a failure answers 503);
 * prints `NAME listening on PORT` once ready; on SIGINT or SIGTERM closes, then `close()`, then exits 0.
 * With `log` (requestLog), each request's line once its reply is sent.
 */
export function serve(name, handle, close, log) {
  const server = http.createServer((req, res) => {
    const started = performance.now();
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const send = (code, body) => {
        res.writeHead(code, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
        res.end(body);
        if (log) log(req, code, started);
      };
      handle(req, Buffer.concat(chunks).toString()).then(
        ([code, body]) => send(code, body),
        (e) => send(503, errorBody(503, 'UNAVAILABLE', String(e?.message ?? e))),
      );
    });
  });
  server.keepAliveTimeout = 72_000;
  server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
    console.log(`${name} listening on ${server.address().port}`);
  });
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      server.close(() => close().then(() => process.exit(0)));
      server.closeAllConnections();
    });
  }
}

// ---- Souk's duties (FLOOR_DUTIES=1): its rate limits and abuse limits counted, its log line, its events' payloads ----

/** Whether the floor does Souk's duties too (the floor-duties-* and floor-pg-duties-* rows). */
export const DUTIES = process.env.FLOOR_DUTIES === '1';

const setting = (name, fallback) => Number(process.env[name] ?? fallback);
const MINUTE = 60_000;
const HOUR = 3_600_000;

/** Fixed windows per key in this process, as src/auth/counters.ts MemoryCounter counts them (ended windows swept). */
class Windows {
  windows = new Map();
  constructor(sweepMs) {
    setInterval(
      () => {
        const now = Date.now();
        for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
      },
      Math.max(1000, sweepMs),
    ).unref();
  }
  hit(key, windowMs) {
    const now = Date.now();
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      this.windows.delete(key);
      this.windows.set(key, (w = { count: 0, resetAt: now + windowMs }));
    }
    return { count: ++w.count, resetMs: w.resetAt - now };
  }
  peek(key) {
    const w = this.windows.get(key);
    return w && w.resetAt > Date.now() ? { count: w.count, resetMs: w.resetAt - Date.now() } : { count: 0, resetMs: 0 };
  }
  release(key) {
    const w = this.windows.get(key);
    if (w && w.resetAt > Date.now() && w.count > 0) w.count--;
  }
}

/** Souk's 429 (src/http/errors.ts tooManyRequests; its Retry-After header left out). */
const tooMany = (what) => [
  429,
  errorBody(429, 'TOO_MANY_REQUESTS', `Too many ${what}. Retry after the number of seconds in the Retry-After header.`),
];

/**
 * The rate limits as src/http/plugins/rate-limit.ts counts them without REDIS_URL, at the points
 * src/http/auth-hook.ts asks: the client address's failed authentications looked at first, a
 * failure counted against it, the API key counted once the token verified, the user once known.
 * Each returns its refusal, or undefined.
 */
export function rateLimits(apiKey) {
  const windowMs = setting('RATE_LIMIT_WINDOW_MS', MINUTE);
  const [perKey, perUser, authFailures] = [
    setting('RATE_LIMIT_PER_KEY', 0),
    setting('RATE_LIMIT_PER_USER', 6000),
    setting('RATE_LIMIT_AUTH_FAILURES', 100),
  ];
  const requests = new Windows(windowMs);
  const addresses = new Windows(windowMs);
  const keyId = crypto.createHash('sha256').update(apiKey, 'utf8').digest('base64url').slice(0, 22);
  const check = (key, max, what) => (max > 0 && requests.hit(key, windowMs).count > max ? tooMany(what) : undefined);
  return {
    address: (ip) =>
      authFailures > 0 && addresses.peek(`address:${ip}`).count >= authFailures ? tooMany('failed authentication attempts') : undefined,
    failed: (ip) => void (authFailures > 0 && addresses.hit(`address:${ip}`, windowMs)),
    key: () => check(`key:${keyId}`, perKey, 'requests with this API key'),
    user: (id) => check(`user:${id}`, perUser, 'requests for this user'),
  };
}

/**
 * The abuse limits of a start as src/http/plugins/abuse-limits.ts counts them in this process: a
 * place among the sender's messages of the minute and one among their new conversations of the
 * hour, taken before the start, each given back unless it stored what it counts. Unlike Souk, a
 * sender at the limit of new conversations is refused even where the start would append to an open one.
 */
export function abuseLimits() {
  const [messages, conversations] = [setting('MESSAGES_PER_MINUTE', 30), setting('NEW_CONVERSATIONS_PER_HOUR', 20)];
  const counter = new Windows(MINUTE);
  const take = (key, max, windowMs) => {
    if (max === 0) return { taken: false };
    if (counter.hit(key, windowMs).count <= max) return { taken: true };
    counter.release(key);
    return { taken: false, over: true };
  };
  const giveBack = (place, key, kept) => void (place.taken && !kept && counter.release(key));
  return (user) => {
    const [m, c] = [`abuse-messages:${user}`, `abuse-conversations:${user}`];
    const message = take(m, messages, MINUTE);
    if (message.over) return { refusal: tooMany('messages in the last minute') };
    const conversation = take(c, conversations, HOUR);
    if (conversation.over) {
      giveBack(message, m, false);
      return { refusal: tooMany('new conversations in the last hour') };
    }
    /** `created`: a conversation was stored; `stored`: a message was. */
    return { settle: (created, stored) => (giveBack(message, m, stored), giveBack(conversation, c, created)) };
  };
}

/**
 * Souk's one log line per request (src/http/plugins/logging.ts logRequest), with pino as Fastify
 * makes it: a child logger per request bound to its id (a random UUID: the bench sends no
 * X-Request-Id), the client address, written when the reply has been sent.
 */
export async function requestLog(base) {
  const { default: pino } = await import('pino');
  const logger = pino({ level: process.env.LOG_LEVEL ?? 'info' });
  return (req, statusCode, started) => {
    const path = req.url.split('?', 1)[0];
    logger.child({ reqId: crypto.randomUUID() }).info(
      {
        client: req.socket.remoteAddress,
        method: req.method,
        route: path.startsWith(base) ? path : 'unmatched',
        path,
        statusCode,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    );
  };
}

// The events a start logs for the listing's owner (src/domain/chat/conversation.ts, chat/events.ts),
// as JSON text of the shape and size of Souk's JSON.stringify of the DomainEvent.

/** A user as Souk's events hold one (domain/model.ts User); the columns the floors do not keep are at the bench's defaults. */
export const userEventJson = (u) =>
  JSON.stringify({
    id: u.id,
    login: u.login,
    name: u.name,
    email: u.email,
    phone: u.phone,
    whatsapp: u.whatsapp,
    website: u.website,
    profilePicture: u.profile_picture,
    disabled: false,
    firstName: '',
    lastName: '',
    description: '',
    isAdmin: false,
    address: '',
    zipcode: '',
    latitude: '',
    longitude: '',
    locations: [],
    registeredAt: null,
  });

/** A listing as Souk's events hold one (store/common/rows.ts toListing); images, category and location are its columns' JSON text. */
export const listingEventJson = (id, l) =>
  JSON.stringify({
    id,
    ownerId: l.owner_id,
    title: l.title,
    slug: l.slug,
    status: l.status,
    price: l.price,
    media: { images: l.images, category: l.category, location: l.location },
    priceType: l.price_type ?? '',
  });

/** A text message as the events hold it: `tempId` a string or null. */
export const messageEventJson = (id, conId, sourceId, text, tempId, at) =>
  `{"id":${id},"conId":${conId},"sourceId":${sourceId},"text":${JSON.stringify(text)},"type":"text","attachments":null,"isRead":false,` +
  `"tempId":${tempId === null ? 'null' : JSON.stringify(tempId)},"createdAt":${at}}`;

/** `conversation.new` of a conversation just created with its first message `message` (messageEventJson). */
export const conversationNewJson = (c, listingJson, senderJson, recipientJson, message) =>
  `{"type":"conversation.new","started":{"conversation":{"id":${c.id},"listingId":${c.listingId},"senderId":${c.senderId},` +
  `"recipientId":${c.recipientId},"senderDelete":false,"recipientDelete":false,"senderReview":false,"recipientReview":false,` +
  `"invertReview":false,"lastMessageId":${c.messageId},"createdAt":${c.at},"updatedAt":${c.at}},"listing":${listingJson},` +
  `"sender":${senderJson},"recipient":${recipientJson},"message":${message},"lastMessage":${message},"unreadCount":1}}`;

export const messageNewJson = (message) => `{"type":"message.new","message":${message}}`;
export const unreadJson = (userId, conId, count) =>
  `{"type":"conversation.unread","userId":${userId},"conversationId":${conId},"count":${count}}`;

/** A start refused for a block between the two, or a closed account (src/http/errors.ts cannotMessageUser). */
export const CANNOT_MESSAGE = '{"code":"FORBIDDEN","message":"You cannot send messages to this user."}';

/** A request's refusal before its caller is looked for: with `limits` (rateLimits), the address's failed authentications first; then the API key. */
export function keyCheck(req, key, limits) {
  const ip = req.socket.remoteAddress;
  const over = limits?.address(ip);
  if (over) return over;
  const refused = keyRefusal(req.headers['x-api-key'], key);
  if (refused) limits?.failed(ip);
  return refused;
}

/** Its refusal once its caller is known (0: none): not signed in (with `limits`, a failure counted), or over the key's or the user's limit. */
export function callerCheck(req, user, limits) {
  if (!user) {
    limits?.failed(req.socket.remoteAddress);
    return [403, NOT_LOGGED_IN];
  }
  return limits && (limits.key() ?? limits.user(user));
}

/** Souk's statement writing the push outbox row of a new message for its recipient when they have a device (store/common/push.ts queuePush); `?` parameters. */
export const QUEUE_PUSH =
  'insert into push_outbox (user_id, message_id, payload, created_at, status, attempts, next_attempt_at) select cast(? as bigint) as user_id, ' +
  "cast(? as bigint) as message_id, cast(? as text) as payload, cast(? as bigint) as created_at, 'pending' as status, 0 as attempts, " +
  'cast(? as bigint) as next_attempt_at where exists (select 1 as one from push_devices where user_id = ?) on conflict (user_id, message_id) do nothing';

/** A statement's `?` parameters as PostgreSQL's $1, $2, ... */
export const numbered = (text) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

/**
 * The events a start that stored its message logs for the listing's owner, in Souk's order
 * (domain/chat/conversation.ts startConversation, chat/events.ts recordNewMessage): [type, payload]
 * pairs, and message.new's payload, which the push outbox row holds. `s`: the conversation
 * `conId` (`created` with this message), the listing `listingId` and its events' JSON `listingJson`,
 * `sender` and `owner` ({id, json}), the message `messageId`, `text`, `tempId` (string or null), `at`,
 * and `unread`: the owner's count of the sender's unread messages with this one.
 */
export function startEvents(s) {
  const message = messageEventJson(s.messageId, s.conId, s.sender.id, s.text, s.tempId, s.at);
  const messageNew = messageNewJson(message);
  const started = { id: s.conId, listingId: s.listingId, senderId: s.sender.id, recipientId: s.owner.id, messageId: s.messageId, at: s.at };
  return {
    events: [
      ...(s.created ? [['conversation.new', conversationNewJson(started, s.listingJson, s.sender.json, s.owner.json, message)]] : []),
      ['message.new', messageNew],
      ['conversation.unread', unreadJson(s.owner.id, s.conId, s.unread)],
    ],
    push: messageNew,
  };
}
