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
 */
export function serve(name, handle, close) {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const send = (code, body) => {
        res.writeHead(code, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
        res.end(body);
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
