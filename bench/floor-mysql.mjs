// The MySQL floor: the toggle, the start of a conversation and the conversation read written as lean as
// this platform allows on a WordPress site's own tables (node:http and mysql2, nothing else), doing the
// database work Souk must do for them there and no other:
//   toggle  the listing's status; in a transaction, the writer's wp_users row and their rtcl_favourites
//           usermeta row read FOR UPDATE (one statement), the PHP-serialised list written back, commit;
//   start   the listing's post row; in a transaction, the writer's row locked, the open conversation
//           looked for (the plugin's table has no index for it: a scan), the conversation, the message,
//           the conversation's last message and Souk's temp_id row written, commit;
//   read    the conversation, its page of messages, their count, the unread count and the listing's
//           post row, in one round trip.
// Statements travel together (mysql2's multipleStatements: every value a placeholder), so each request
// makes as few round trips as its data dependencies allow. Like Souk, it keeps verified tokens, users
// and listing summaries (a summary while its post_modified_gmt is unchanged, for at most 30 s); its
// summaries and user objects are simplified (the same queries, fewer fields built), and it has none of
// Souk's other duties (logs, metrics, rate limits, every error shape, validation of every field).
// Usage, from the project root:
//   PORT=.. API_KEY=.. JWT_SECRET=.. DATABASE_URL=mysql://.. [SITE_URL=..] [DB_POOL_SIZE=10] node bench/floor-mysql.mjs
import mysql from 'mysql2';
import {
  bearerClaims,
  errorBody as B,
  keyRefusal,
  listingRequest,
  md5,
  NOT_LOGGED_IN,
  NOT_PERMITTED,
  serve,
  signedInUser,
} from './floor-common.mjs';

const SITE = (process.env.SITE_URL ?? 'https://souk.example').replace(/\/+$/, '');
const KEY = Buffer.from(process.env.API_KEY ?? '');
const SECRET = process.env.JWT_SECRET ?? '';
const PERIOD_MS = 30_000;
const P = 'wp_';

const pool = mysql.createPool({
  uri: process.env.DATABASE_URL,
  connectionLimit: Number(process.env.DB_POOL_SIZE ?? 10),
  multipleStatements: true,
  charset: 'utf8mb4',
  dateStrings: true,
  supportBigNumbers: true,
});
// Souk's session level, set once per connection.
pool.on('connection', (c) => c.query('set session transaction isolation level read committed'));
const query = (sql, values) => new Promise((resolve, reject) => pool.query(sql, values, (e, r) => (e ? reject(e) : resolve(r))));
/** Runs statements on one connection, in turns: `step(run)` gets a query function bound to it. */
function onConnection(step) {
  return new Promise((resolve, reject) => {
    pool.getConnection((e, c) => {
      if (e) return reject(e);
      const run = (sql, values) => new Promise((ok, ko) => c.query(sql, values, (err, r) => (err ? ko(err) : ok(r))));
      step(run).then(
        (v) => (c.release(), resolve(v)),
        (err) =>
          run('rollback')
            .catch(() => {})
            .then(() => (c.release(), reject(err))),
      );
    });
  });
}

const local = (ms) => new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19).replace('T', ' ');
const stripTags = (t) =>
  t.includes('<') ? t.replace(/<(script|style)[^>]*?>[\s\S]*?<\/\1>/gi, '').replace(/<\/?[A-Za-z!?][^>]*(>|$)/g, '') : t;

// ---- users: one query for the missing ones, kept PERIOD_MS ----
const users = new Map();
async function usersJson(ids) {
  const now = Date.now();
  const missing = ids.filter((id) => !(users.get(id)?.until > now));
  if (missing.length) {
    const rows = await query(
      `select u.ID, u.user_login, u.display_name, u.user_email, u.user_status,
        max(case when m.meta_key = '_rtcl_phone' then m.meta_value end) phone,
        max(case when m.meta_key = '_rtcl_whatsapp_number' then m.meta_value end) whatsapp,
        max(case when m.meta_key = '_rtcl_website' then m.meta_value end) website
      from ${P}users u left join ${P}usermeta m on m.user_id = u.ID and m.meta_key in ('_rtcl_phone', '_rtcl_whatsapp_number', '_rtcl_website')
      where u.ID in (?) group by u.ID`,
      [missing],
    );
    for (const u of rows) {
      const json = JSON.stringify({
        id: Number(u.ID),
        name: u.display_name || u.user_login,
        email: u.user_email,
        phone: u.phone ?? '',
        whatsapp: u.whatsapp ?? '',
        website: u.website ?? '',
        profile_picture: `https://secure.gravatar.com/avatar/${md5(u.user_email)}?s=96&d=mm&r=g`,
      });
      users.set(Number(u.ID), { json, disabled: Number(u.user_status) !== 0, until: now + PERIOD_MS });
    }
  }
  return ids.map((id) => users.get(id));
}

// ---- listing summaries: the same three queries as Souk's, kept while post_modified_gmt is unchanged ----
const summaries = new Map();
const STATUS = { publish: 1, pending: 1, draft: 1, private: 1, future: 1, 'rtcl-expired': 1, trash: 1 };
const POST = `p.ID, p.post_author, p.post_status, p.post_title, p.post_name, p.post_modified_gmt`;
async function summaryOf(post) {
  const id = Number(post.ID);
  const version = `${post.post_modified_gmt}|${Math.floor(Date.now() / PERIOD_MS)}|${post.post_title}|${post.post_name}`;
  const kept = summaries.get(id);
  if (kept?.version === version) return kept.json;
  const [[meta], terms, images] = await query(
    `select max(case when meta_key = 'price' then meta_value end) price, max(case when meta_key = 'price_type' then meta_value end) price_type
      from ${P}postmeta where post_id = ? and meta_key in ('price', 'price_type');
    select r.object_id, t.term_id, t.name, t.slug, tt.taxonomy, tt.parent from ${P}term_relationships r
      join ${P}term_taxonomy tt on tt.term_taxonomy_id = r.term_taxonomy_id join ${P}terms t on t.term_id = tt.term_id
      where r.object_id = ? and tt.taxonomy in ('rtcl_category', 'rtcl_location', 'rtcl_tag');
    select a.ID, max(case when m.meta_key = '_wp_attached_file' then m.meta_value end) file,
        max(case when m.meta_key = '_wp_attachment_metadata' then m.meta_value end) meta
      from ${P}posts a left join ${P}postmeta m on m.post_id = a.ID and m.meta_key in ('_wp_attached_file', '_wp_attachment_metadata', '_wp_attachment_image_alt')
      where a.post_parent = ? and a.post_type = 'attachment' and a.post_mime_type like 'image/%' group by a.ID order by a.menu_order, a.ID`,
    [id, id, id],
  );
  const price = meta?.price ?? '';
  const amount = price === '' ? '' : Number(price).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const of = (taxonomy) =>
    terms.filter((t) => t.taxonomy === taxonomy).map((t) => ({ term_id: Number(t.term_id), name: t.name, slug: t.slug }));
  const json = JSON.stringify({
    id,
    title: post.post_title,
    url: `${SITE}/listing/${post.post_name}/`,
    images: images.map((a) => ({ ID: Number(a.ID), src: `${SITE}/wp-content/uploads/${a.file}` })),
    amount:
      price === ''
        ? ''
        : `<span class="rtcl-price-amount amount"><bdi><span class="rtcl-price-currencySymbol">&#36;</span>${amount}</bdi></span>`,
    raw_price: price,
    price_type: meta?.price_type ?? '',
    location: of('rtcl_location'),
    category: of('rtcl_category'),
  });
  summaries.set(id, { version, json });
  return json;
}

// ---- favourites as the plugin stores them ----
function parseFavourites(raw) {
  const ids = [];
  if (raw) for (const m of raw.matchAll(/i:\d+;(?:i:(\d+)|s:\d+:"(\d+)");/g)) ids.push(Number(m[1] ?? m[2]));
  return [...new Set(ids)];
}
const serializeFavourites = (ids) => `a:${ids.length}:{${ids.map((v, i) => `i:${i};i:${v};`).join('')}}`;

// ---- the operations ----
const NOT_FOUND = [400, B(400, 'BADREQUEST', 'Listing not found.')];
const FORBIDDEN = [403, NOT_PERMITTED];

async function toggle(user, body) {
  const listingId = body.listing_id;
  return onConnection(async (run) => {
    const [status, , rows] = await run(
      `select post_status from ${P}posts where ID = ? and post_type = 'rtcl_listing'; begin;
      select u.ID, m.umeta_id, m.meta_value from ${P}users u left join ${P}usermeta m on m.user_id = u.ID and m.meta_key = 'rtcl_favourites'
        where u.ID = ? for update`,
      [listingId, user],
    );
    const st = status[0]?.post_status;
    if (!STATUS[st] || st === 'trash') {
      await run('rollback');
      return NOT_FOUND;
    }
    const row = rows.filter((r) => r.umeta_id !== null).sort((a, b) => Number(a.umeta_id) - Number(b.umeta_id))[0];
    const ids = parseFavourites(row?.meta_value);
    const after = ids.includes(listingId) ? ids.filter((x) => x !== listingId) : [...ids, listingId];
    const value = serializeFavourites(after);
    if (row) await run(`update ${P}usermeta set meta_value = ? where umeta_id = ?; commit`, [value, row.umeta_id]);
    else await run(`insert into ${P}usermeta (user_id, meta_key, meta_value) values (?, 'rtcl_favourites', ?); commit`, [user, value]);
    return [200, JSON.stringify(after)];
  });
}

const messageJson = (m) =>
  `{"message_id":${m.id},"con_id":${m.conId},"source_id":${m.sourceId},"message":${JSON.stringify(m.text)},"meta":null,"attachments":null,` +
  `"type":"text","is_read":${m.isRead ? 1 : 0},"created_at":"${m.createdAt}","temp_id":${JSON.stringify(m.tempId ?? '')}}`;

async function start(user, body) {
  if (typeof body.text !== 'string' || body.text.trim() === '') return [400, B(400, 'BADREQUEST', 'text is required')];
  const [post] = await query(`select ${POST} from ${P}posts p where p.ID = ? and p.post_type = 'rtcl_listing'`, [body.listing_id]);
  if (!post || !STATUS[post.post_status] || post.post_status === 'trash') return NOT_FOUND;
  const owner = Number(post.post_author);
  if (owner === user) return FORBIDDEN;
  const [summary, [sender, recipient]] = await Promise.all([summaryOf(post), usersJson([user, owner])]);
  if (!recipient || recipient.disabled) return NOT_FOUND;
  const now = local(Date.now());
  const text = stripTags(body.text);
  const tempId = body.temp_id == null ? null : String(body.temp_id);
  const c = await onConnection(async (run) => {
    const [, , [open]] = await run(
      `begin; select ID from ${P}users where ID = ? for update;
      select con_id, created_at, updated_at, last_message_id from ${P}rtcl_conversations
        where listing_id = ? and sender_id = ? and recipient_id = ? and sender_delete = 0 and recipient_delete = 0 order by con_id desc limit 1`,
      [user, body.listing_id, user, owner],
    );
    if (!open) {
      const r = await run(
        `insert into ${P}rtcl_conversations (listing_id, sender_id, recipient_id, created_at, updated_at) values (?, ?, ?, ?, ?);
        set @c = last_insert_id();
        insert into ${P}rtcl_conversation_messages (con_id, source_id, type, message, attachments, meta, is_read, created_at)
          values (@c, ?, 'text', ?, null, null, 0, ?);
        set @m = last_insert_id();
        update ${P}rtcl_conversations set last_message_id = @m where con_id = @c;
        ${tempId === null ? '' : `insert into ${P}souk_message_temp_ids (message_id, con_id, source_id, temp_id) values (@m, @c, ?, ?);`}
        commit`,
        [body.listing_id, user, owner, now, now, user, text, now, ...(tempId === null ? [] : [user, tempId])],
      );
      return { id: Number(r[0].insertId), created: now, messageId: Number(r[2].insertId), text, at: now, unread: 0 };
    }
    const conId = Number(open.con_id);
    const [retry] =
      tempId === null
        ? []
        : await run(
            `select m.message_id, m.message, m.created_at from ${P}souk_message_temp_ids s join ${P}rtcl_conversation_messages m on m.message_id = s.message_id
        where s.con_id = ? and s.source_id = ? and s.temp_id = ? order by m.message_id limit 1`,
            [conId, user, tempId],
          );
    if (retry) {
      const [[n]] = await run(
        `select count(*) n from ${P}rtcl_conversation_messages where con_id = ? and source_id = ? and is_read = 0; commit`,
        [conId, owner],
      );
      return {
        id: conId,
        created: open.created_at,
        messageId: Number(retry.message_id),
        text: retry.message,
        at: retry.created_at,
        unread: Number(n.n),
      };
    }
    const r = await run(
      `insert into ${P}rtcl_conversation_messages (con_id, source_id, type, message, attachments, meta, is_read, created_at) values (?, ?, 'text', ?, null, null, 0, ?);
      set @m = last_insert_id();
      update ${P}rtcl_conversations set last_message_id = greatest(coalesce(last_message_id, 0), @m), updated_at = greatest(updated_at, ?) where con_id = ?;
      ${tempId === null ? '' : `insert into ${P}souk_message_temp_ids (message_id, con_id, source_id, temp_id) values (@m, ?, ?, ?);`}
      select count(*) n from ${P}rtcl_conversation_messages where con_id = ? and source_id = ? and is_read = 0;
      commit`,
      [conId, user, text, now, now, conId, ...(tempId === null ? [] : [conId, user, tempId]), conId, owner],
    );
    return { id: conId, created: open.created_at, messageId: Number(r[0].insertId), text, at: now, unread: Number(r.at(-2)[0].n) };
  });
  const m = { id: c.messageId, conId: c.id, sourceId: user, text: c.text, isRead: false, createdAt: c.at, tempId };
  return [
    200,
    `{"con_id":${c.id},"listing":${summary},"unread_count":${c.unread},"sender":${sender.json},"recipient":${recipient.json},` +
      `"listing_id":${body.listing_id},"sender_id":${user},"recipient_id":${owner},"sender_delete":false,"recipient_delete":false,"last_message_id":${m.id},` +
      `"sender_review":false,"recipient_review":false,"invert_review":false,"created_at":"${c.created}","updated_at":"${c.at}",` +
      `"last_message":${JSON.stringify(m.text)},"last_message_created_at":"${m.createdAt}","newMessage":${messageJson(m)}}`,
  ];
}

async function read(user, params) {
  const conId = Number(params.get('con_id'));
  const perPage = Math.min(100, Number(params.get('per_page') ?? 50) || 50);
  const page = Math.max(1, Number(params.get('page') ?? 1) || 1);
  const afterId = Number(params.get('after_id') ?? 0) || 0;
  if (!Number.isSafeInteger(conId) || conId < 1) return [400, B(400, 'BADREQUEST', 'con_id')];
  const [[c], messages, [count], [unread], [post]] = await query(
    `select con_id, listing_id, sender_id, recipient_id, sender_delete, recipient_delete, last_message_id, sender_review, recipient_review,
        invert_review, created_at, updated_at from ${P}rtcl_conversations where con_id = ?;
    select message_id, con_id, source_id, type, message, attachments, is_read, created_at from ${P}rtcl_conversation_messages
      where con_id = ? and message_id > ? order by message_id desc limit ? offset ?;
    select count(*) n from ${P}rtcl_conversation_messages where con_id = ? and message_id > ?;
    select count(*) n from ${P}rtcl_conversations c join ${P}rtcl_conversation_messages m on m.con_id = c.con_id
      where c.con_id = ? and m.is_read = 0 and m.source_id = case when c.sender_id = ? then c.recipient_id else c.sender_id end;
    select ${POST} from ${P}rtcl_conversations c join ${P}posts p on p.ID = c.listing_id and p.post_type = 'rtcl_listing' where c.con_id = ?`,
    [conId, conId, afterId, perPage, (page - 1) * perPage, conId, afterId, conId, user, conId],
  );
  const side = !c
    ? null
    : Number(c.sender_id) === user && !Number(c.sender_delete)
      ? 's'
      : Number(c.recipient_id) === user && !Number(c.recipient_delete)
        ? 'r'
        : null;
  if (!side) return FORBIDDEN;
  const [summary, [sender, recipient]] = await Promise.all([
    post ? summaryOf(post) : 'null',
    usersJson([Number(c.sender_id), Number(c.recipient_id)]),
  ]);
  const last = messages[0];
  const total = Number(count.n);
  const items = messages.map(
    (m) =>
      `{"message_id":${m.message_id},"con_id":"${m.con_id}","source_id":"${m.source_id}","message":${JSON.stringify(m.message ?? '')},` +
      `"type":${JSON.stringify(m.type ?? 'text')},"attachments":${m.attachments ?? 'null'},"is_read":"${m.is_read}","created_at":"${m.created_at}"}`,
  );
  return [
    200,
    `{"con_id":${conId},"listing":${summary},"unread_count":${Number(unread.n)},"sender":${sender.json},"recipient":${recipient.json},` +
      `"listing_id":${c.listing_id},"sender_id":${c.sender_id},"recipient_id":${c.recipient_id},"sender_delete":${!!Number(c.sender_delete)},` +
      `"recipient_delete":${!!Number(c.recipient_delete)},"last_message_id":${c.last_message_id ?? 0},"created_at":"${c.created_at}","updated_at":"${c.updated_at}",` +
      `"last_message":${JSON.stringify(last?.message ?? '')},"last_message_created_at":${JSON.stringify(last?.created_at ?? '')},` +
      `"messages":[${items.join(',')}],"pagination":{"total":${total},"total_pages":${Math.ceil(total / perPage)},"current_page":${page},"per_page":${perPage}}}`,
  ];
}

// ---- the checks every request passes: API key, Bearer JWT (HS256, exp, cached), the user ----
const userOf = signedInUser(bearerClaims(SECRET), usersJson);

async function handle(req, raw) {
  const refusal = keyRefusal(req.headers['x-api-key'], KEY);
  if (refusal) return refusal;
  const user = await userOf(req.headers.authorization);
  if (!user) return [403, NOT_LOGGED_IN];
  const url = new URL(req.url, 'http://floor');
  if (req.method === 'GET' && url.pathname.endsWith('/my/chat/conversation')) return read(user, url.searchParams);
  const { refusal: bad, body } = listingRequest(raw);
  if (bad) return bad;
  return url.pathname.endsWith('/my/chat/conversation') ? start(user, body) : toggle(user, body);
}

serve('floor-mysql', handle, () => new Promise((resolve) => pool.end(() => resolve())));
