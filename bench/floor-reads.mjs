// The read floor: GET my/chat/conversation, GET my/chat and GET my/favourites written as lean as this
// platform allows (node:http, node:sqlite), on Souk's own SQLite file, with the checks Souk makes
// (API key, Bearer JWT HS256 with exp, the user exists and is not disabled, the reader takes part in
// the conversation) and the same reply bytes as Souk's current reply generation with the bench's
// settings (SITE_URL, the default listing address, price format and UTC times). Each request runs its
// queries and writes the rows it selected. Like Souk, it keeps verified tokens, users (which only an
// import changes) and the summaries of 1000 listings, checked against their version in the request's
// query; and the times it formatted (as if stored preformatted). It has none of Souk's other duties
// (logs, metrics, rate limits, every error shape, the classic generation, PostgreSQL, other settings),
// so Souk cannot reach it; how close Souk comes is the measure of its overhead. bench/floor.ts checks
// its bytes against Souk's before its rows, test/bench/floor-reads.test.ts in the suite.
// Usage:
//   PORT=.. API_KEY=.. JWT_SECRET=.. SITE_URL=.. [API_PREFIX=..] node bench/floor-reads.mjs SOUK.db
import http from 'node:http';
import {
  arrays,
  bearerClaims,
  databaseSync,
  errorBody as B,
  flags,
  keyRefusal,
  listingSummaryJson,
  md5,
  messageRowJson,
  NOT_LOGGED_IN,
  NOT_PERMITTED,
  pageParams,
  pages,
  time,
  totalOf,
  userSummaryJson,
} from './floor-common.mjs';

const DatabaseSync = databaseSync();
// Read-only, so the file must exist; a lock taken by Souk is waited for, as Souk does.
const db = new DatabaseSync(process.argv[2], { readOnly: true, timeout: 5000 });
// Souk's page cache (DB_CACHE_MB, 16 MB by default).
db.exec('pragma cache_size = -16384');
const SITE = (process.env.SITE_URL ?? '').replace(/\/+$/, '');
const BASE = `${process.env.API_PREFIX ?? '/wp-json/rtcl'}/v1/`;
const KEY = Buffer.from(process.env.API_KEY ?? '');
const SECRET = process.env.JWT_SECRET ?? '';

// The listing's version only: its summary is kept while the version is unchanged, as Souk keeps its listings.
const LISTING = 'l.id as l_id, l.version as l_version';
const CONVERSATION =
  'c.id, c.listing_id, c.sender_id, c.recipient_id, c.sender_delete, c.recipient_delete, c.sender_review, c.recipient_review, c.invert_review, c.last_message_id, c.created_at, c.updated_at';
// Messages of conversation c from the participant other than the reader (the parameter), still unread.
const UNREAD =
  '(select count(*) from messages u where u.con_id = c.id and u.source_id = (case when c.sender_id = ? then c.recipient_id else c.sender_id end) and u.is_read = 0)';
// The reader's conversations, not left (two parameters: the reader).
const MINE = '((c.sender_id = ? and c.sender_delete = 0) or (c.recipient_id = ? and c.recipient_delete = 0))';
const SHOWN = "from favourites f join listings l on l.id = f.listing_id where f.user_id = ? and l.status = 'publish'";
const q = {
  user: db.prepare('select * from users where id = ?'),
  conversation: db.prepare(`select ${CONVERSATION}, ${LISTING}, ${UNREAD} as unread from conversations c
    left join listings l on l.id = c.listing_id where c.id = ?`),
  listing: db.prepare(
    'select l.title, l.slug, l.price, l.images, l.category, l.location, d.price_type from listings l left join listing_details d on d.listing_id = l.id where l.id = ?',
  ),
  messages: arrays(
    db.prepare(
      'select id, con_id, source_id, message, type, attachments, is_read, created_at from messages where con_id = ? and id > ? order by id desc limit ? offset ?',
    ),
  ),
  messageCount: db.prepare('select count(*) as n from messages where con_id = ? and id > ?'),
  message: db.prepare('select message, created_at from messages where id = ?'),
  chats: db.prepare(`select ${CONVERSATION}, m.message as last_text, m.is_read as last_is_read, m.source_id as last_source_id,
    m.created_at as last_created_at, ${UNREAD} as unread, ${LISTING} from conversations c left join messages m on m.id = c.last_message_id
    left join listings l on l.id = c.listing_id where ${MINE} order by c.last_message_id desc, c.id desc limit ? offset ?`),
  chatCount: db.prepare(`select count(*) as n from conversations c where ${MINE}`),
  // Sorted and cut to the page first, then joined to the listings: the sorter never carries a listing's JSON.
  favourites:
    db.prepare(`select l.id, l.owner_id, l.title, l.status, l.price, l.images, l.category, l.updated_at, d.pricing_type, d.max_price,
    d.price_type, d.price_units, d.price_unit, d.ad_type, d.tags, d.created_at, d.view_count, d.promotions, d.badges, d.contact
    from (select f.listing_id, f.added_at, f.id ${SHOWN} order by f.added_at desc, f.id desc limit ? offset ?) p
    join listings l on l.id = p.listing_id left join listing_details d on d.listing_id = p.listing_id order by p.added_at desc, p.id desc`),
  favouriteCount: db.prepare(`select count(*) as n ${SHOWN}`),
};

// A listing imported without details shows the import's defaults, dated by the listing (store/common/favourite-list.ts).
const NO_CONTACT =
  '{"locations":[],"latitude":"","longitude":"","hide_map":false,"zipcode":"","address":"","phone":"","whatsapp_number":"","email":"","website":"","geo_address":""}';
const NO_DETAILS = {
  pricing_type: 'price',
  max_price: '',
  price_type: '',
  price_units: '[]',
  price_unit: '',
  ad_type: '',
  tags: '[]',
  view_count: 0,
  promotions: '[]',
  badges: '[]',
  contact: NO_CONTACT,
};

/** The user's two JSON forms (the chat's summary, the favourites' author), made once, as Souk caches users. */
const users = new Map();
function userOf(id) {
  let u = users.get(id);
  if (u === undefined) {
    const r = q.user.get(id);
    u = r && {
      id: r.id,
      login: r.login,
      name: r.name || r.login,
      disabled: r.disabled !== 0,
      summary: userSummaryJson(r),
      author: JSON.stringify({
        first_name: r.first_name,
        last_name: r.last_name,
        description: r.description,
        id: r.id,
        isAdmin: r.is_admin !== 0,
        email: r.email,
        username: r.login,
        phone: r.phone,
        whatsapp_number: r.whatsapp,
        website: r.website,
        locations: JSON.parse(r.locations),
        zipcode: r.zipcode,
        address: r.address,
        latitude: r.latitude,
        longitude: r.longitude,
        pp_thumb_url: r.profile_picture || `https://gravatar.com/avatar/${md5(r.email)}?s=80&d=mm`,
      }),
    };
    users.set(id, u);
  }
  return u;
}

const claimsOf = bearerClaims(SECRET);
/** The caller's user id, 0 when the token is not one of ours, expired, or its user cannot sign in. */
function callerOf(auth) {
  const c = claimsOf(auth);
  const u = c && userOf(c.sub);
  return u && !u.disabled ? c.sub : 0;
}

/** The listing summary of the row's listing (l_id, l_version), or null when the listing is gone. */
function summary(r) {
  if (r.l_id === null) return 'null';
  let s = summaries.get(r.l_id);
  if (s === undefined || s.version !== r.l_version) {
    s = { version: r.l_version, json: listingSummaryJson(SITE, r.l_id, q.listing.get(r.l_id)) };
  }
  // The most recently used last; beyond Souk's 1000 listings, the least recently used goes.
  summaries.delete(r.l_id);
  summaries.set(r.l_id, s);
  if (summaries.size > 1000) summaries.delete(summaries.keys().next().value);
  return s.json;
}
const summaries = new Map();

const FORBIDDEN = [403, NOT_PERMITTED];

function conversation(user, p) {
  const c = q.conversation.get(user, p.con_id);
  if (!c || !((c.sender_id === user && !c.sender_delete) || (c.recipient_id === user && !c.recipient_delete))) return FORBIDDEN;
  const offset = (p.page - 1) * p.per_page;
  const rows = q.messages.all(c.id, p.after_id, p.per_page, offset);
  const total = totalOf(rows.length, offset, p.per_page, () => q.messageCount.get(c.id, p.after_id).n);
  const last =
    c.last_message_id === null
      ? undefined
      : rows[0]?.[0] === c.last_message_id
        ? { message: rows[0][3], created_at: rows[0][7] }
        : q.message.get(c.last_message_id);
  let out =
    `{"con_id":${c.id},"listing":${summary(c)},"unread_count":${c.unread},"sender":${userOf(c.sender_id).summary},"recipient":${userOf(c.recipient_id).summary},` +
    `${flags(c)},"last_message":${last ? JSON.stringify(last.message) : 'null'},"last_message_created_at":${last ? `"${time(last.created_at)}"` : 'null'},"messages":[`;
  for (let i = 0; i < rows.length; i++) out += `${i ? ',' : ''}${messageRowJson(...rows[i])}`;
  return [200, `${out}],"pagination":${pages(total, p.per_page, p.page)}}`];
}

function chats(user, p) {
  const offset = (p.page - 1) * p.per_page;
  const rows = q.chats.all(user, user, user, p.per_page, offset);
  const total = totalOf(rows.length, offset, p.per_page, () => q.chatCount.get(user, user).n);
  const items = rows.map((c) => {
    const other = userOf(c.sender_id === user ? c.recipient_id : c.sender_id);
    const has = c.last_text !== null;
    return (
      `{"con_id":${c.id},${flags(c)},"message":${has ? JSON.stringify(c.last_text) : 'null'},"is_read":${has ? `"${c.last_is_read ? 1 : 0}"` : 'null'},` +
      `"source_id":${has ? `"${c.last_source_id}"` : 'null'},"last_message":${has ? JSON.stringify(c.last_text) : 'null'},` +
      `"last_message_created_at":${has ? `"${time(c.last_created_at)}"` : 'null'},"display_name":${JSON.stringify(other.name)},"user_login":${JSON.stringify(other.login)},` +
      `"other_id":"${other.id}","listing":${summary(c)},"unread_count":${c.unread},"sender":${userOf(c.sender_id).summary},"recipient":${userOf(c.recipient_id).summary}}`
    );
  });
  return [200, `{"data":[${items.join(',')}],"pagination":${pages(total, p.per_page, p.page)}}`];
}

function favourites(user, p) {
  const offset = (p.page - 1) * p.per_page;
  const rows = q.favourites.all(user, p.per_page, offset);
  const total = totalOf(rows.length, offset, p.per_page, () => q.favouriteCount.get(user).n);
  if (total === 0) return [200, '{"data":[],"pagination":null}'];
  const items = rows.map((r) => {
    const d = r.pricing_type === null ? { ...NO_DETAILS, created_at: r.updated_at } : r;
    const local = time(d.created_at);
    return (
      `{"listing_id":${r.id},"author_id":${r.owner_id},"author":${userOf(r.owner_id).author},"title":${JSON.stringify(r.title)},` +
      `"pricing_type":${JSON.stringify(d.pricing_type)},"raw_price":${JSON.stringify(r.price)},"raw_max_price":${JSON.stringify(d.max_price)},` +
      `"price":${JSON.stringify(r.price)},"max_price":${JSON.stringify(d.max_price || '0')},"price_type":${JSON.stringify(d.price_type)},` +
      `"price_units":${d.price_units},"price_unit":${JSON.stringify(d.price_unit)},"categories":${r.category},"tags":${d.tags === '[]' ? 'false' : d.tags},` +
      `"ad_type":${JSON.stringify(d.ad_type)},"status":${JSON.stringify(r.status)},"images":${r.images},` +
      `"date_created":{"date":"${local}.000000","timezone_type":1,"timezone":"+00:00"},"created_at":"${local}","view_count":${d.view_count},` +
      `"promotions":${d.promotions},"badges":${d.badges},"contact":${d.contact}}`
    );
  });
  return [
    200,
    `{"data":[${items.join(',')}],"pagination":{"total":${total},"count":${rows.length},"per_page":${p.per_page},"current_page":${p.page},"total_pages":${Math.ceil(total / p.per_page)}}}`,
  ];
}

const ROUTES = { 'my/chat/conversation': [conversation, 50], 'my/chat': [chats, 20], 'my/favourites': [favourites, 20] };

http
  .createServer((req, res) => {
    const send = (code, body) => {
      res.writeHead(code, { 'content-type': 'application/json; charset=utf-8' });
      res.end(body);
    };
    const [pathname, query] = req.url.split('?');
    const route = req.method === 'GET' && pathname.startsWith(BASE) ? ROUTES[pathname.slice(BASE.length)] : undefined;
    if (!route) return send(404, B(404, 'NOT_FOUND', 'no route'));
    const refusal = keyRefusal(req.headers['x-api-key'], KEY);
    if (refusal) return send(...refusal);
    const user = callerOf(req.headers.authorization);
    if (!user) return send(403, NOT_LOGGED_IN);
    const p = pageParams(query, route[1]);
    if (!p || (route[0] === conversation && !p.con_id)) return send(400, B(400, 'BADREQUEST', 'bad parameter'));
    send(...route[0](user, p));
    req.resume();
  })
  .listen(+process.env.PORT, process.env.HOST ?? '127.0.0.1');
// A clean exit on SIGTERM, so that node --cpu-prof writes its profile.
process.on('SIGTERM', () => {
  db.close();
  process.exit(0);
});
