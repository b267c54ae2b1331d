/**
 * The rest of the chat (docs/routes.md: N1-N4, GET my/chat, GET my/chat/check, GET and DELETE
 * my/chat/conversation, POST and PUT my/chat/message) through the real app, in both reply
 * generations (CHAT_REPLY_FORMAT current and classic), with exact bodies: values, key order and
 * types. Runs on SQLite, and on PostgreSQL when TEST_DATABASE_URL names one.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { deleteListings } from '../../src/domain/catalog.js';
import { marketplace, LISTINGS, USERS } from '../helpers/fixtures.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';

type Json = Record<string, any>;

const API = '/wp-json/rtcl/v1';
const LIST = `${API}/my/chat`;
const CHECK = `${API}/my/chat/check`;
const CONVERSATION = `${API}/my/chat/conversation`;
const MESSAGE = `${API}/my/chat/message`;

const { amina, youssef, sara } = USERS;
const BIKE = LISTINGS.bike;

const bad = (error_message: string) => ({ status: 'error', error: 'BADREQUEST', code: '400', error_message });
const required = (name: string) => bad(`${name} is required and must be a positive integer.`);
const NO_PERMISSION = { code: 'FORBIDDEN', message: 'You are not permitted to access this conversation.' };
const OTHER_LEFT = { code: 'FORBIDDEN', message: 'The other participant has left this conversation.' };
const MISSING_AUTHORIZATION = {
  status: 'error',
  error: 'MISSING_AUTHORIZATION_HEADER',
  code: '401',
  error_message:
    'Authorization header not received. Either authorization header was not sent or it was removed by your server due to security reasons.',
};
const REVOKED = { status: 'error', error: 'INVALID_TOKEN', code: '401', error_message: 'JWT has been revoked.' };

const json = (res: LightMyRequestResponse) => JSON.parse(res.body) as any;

/** The same values, the same keys in the same order, the same types (JSON text compared). */
function exact(actual: unknown, expected: unknown, label?: string): void {
  assert.deepEqual(actual, expected, label);
  assert.equal(JSON.stringify(actual), JSON.stringify(expected), `${label ?? ''} key order`);
}

function assertReply(res: LightMyRequestResponse, status: number, body: unknown, label?: string): void {
  assert.equal(res.statusCode, status, `${label ?? ''} ${res.body}`);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  exact(json(res), body, label);
}

interface Call {
  as?: number;
  headers?: Record<string, string>;
  /** A JSON body (a string is sent as it is). */
  body?: unknown;
  /** A form-urlencoded body. */
  form?: Record<string, string>;
}

function call(t: TestSouk, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, c: Call = {}) {
  const headers: Record<string, string> = { ...(c.as === undefined ? {} : t.auth(c.as)), ...c.headers };
  let payload: string | undefined;
  if (c.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = new URLSearchParams(c.form).toString();
  } else if (c.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    payload = typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
  }
  return t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
}

const list = (t: TestSouk, as: number, query = '') => call(t, 'GET', `${LIST}${query}`, { as });
const read = (t: TestSouk, as: number, conId: number | string, query = '') =>
  call(t, 'GET', `${CONVERSATION}?con_id=${conId}${query}`, { as });
const check = (t: TestSouk, as: number, listingId: number | string, query = '') =>
  call(t, 'GET', `${CHECK}?listing_id=${listingId}${query}`, { as });
const leave = (t: TestSouk, as: number, conId: number | string) => call(t, 'DELETE', `${CONVERSATION}?con_id=${conId}`, { as });
const post = (t: TestSouk, as: number, body: unknown) => call(t, 'POST', MESSAGE, { as, body });
const markRead = (t: TestSouk, as: number, conId: number, messageId: number) =>
  call(t, 'PUT', MESSAGE, { as, body: { con_id: conId, message_id: messageId } });

/** Starts a conversation (the seed operation); its reply. */
async function start(t: TestSouk, as: number = amina, listingId: number = BIKE, text = 'Is the bike still for sale?'): Promise<Json> {
  const res = await t.start(as, { listing_id: listingId, text });
  assert.equal(res.statusCode, 200, res.body);
  return json(res);
}

/** Answers in a conversation; the stored message object. */
async function send(t: TestSouk, as: number, conId: number, text: string, extra: Json = {}): Promise<Json> {
  const res = await post(t, as, { con_id: conId, text, ...extra });
  assert.equal(res.statusCode, 200, res.body);
  return json(res);
}

/** A message object (start's newMessage or POST my/chat/message) as the current lists show it (N4). */
const row = (m: Json, isRead = false) => ({
  message_id: String(m.message_id),
  con_id: String(m.con_id),
  source_id: String(m.source_id),
  type: m.type,
  message: m.message,
  attachments: m.attachments === null ? null : JSON.stringify(m.attachments),
  meta: null,
  is_read: isRead ? '1' : '0',
  created_at: m.created_at,
});

/** The same as the classic generation shows it. */
const classicRow = (m: Json, isRead = false) => ({
  message_id: String(m.message_id),
  con_id: String(m.con_id),
  source_id: String(m.source_id),
  message: m.message,
  is_read: isRead ? '1' : '0',
  created_at: m.created_at,
});

/** The classic conversation object (N4): every field an int, flags 0 or 1. */
function classicConversation(s: Json, over: Json = {}): Json {
  return {
    con_id: s.con_id,
    listing_id: s.listing_id,
    sender_id: s.sender_id,
    recipient_id: s.recipient_id,
    sender_delete: 0,
    recipient_delete: 0,
    last_message_id: s.last_message_id,
    sender_review: 0,
    recipient_review: 0,
    invert_review: 0,
    ...over,
  };
}

/** The current conversation object: the seed's fields in the seed's order, without newMessage (N4). */
function currentConversation(s: Json, over: Json = {}): Json {
  const { newMessage: _, ...rest } = s;
  return { ...rest, ...over };
}

const messageCount = async (t: TestSouk) => (await t.souk.store.db.selectFrom('messages').select('id').execute()).length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('N1: authentication on the chat routes', () => {
  const routes = (conId: number): Array<[string, 'GET' | 'POST' | 'PUT' | 'DELETE', string, unknown]> => [
    ['GET my/chat', 'GET', LIST, undefined],
    ['GET my/chat/check', 'GET', `${CHECK}?listing_id=${BIKE}`, undefined],
    ['GET my/chat/conversation', 'GET', `${CONVERSATION}?con_id=${conId}`, undefined],
    ['DELETE my/chat/conversation', 'DELETE', `${CONVERSATION}?con_id=${conId}`, undefined],
    ['POST my/chat/message', 'POST', MESSAGE, { con_id: conId, text: 'x' }],
    ['PUT my/chat/message', 'PUT', MESSAGE, { con_id: conId, message_id: 1 }],
  ];

  it('answers a request without Authorization 401 MISSING_AUTHORIZATION_HEADER on every chat route, touching nothing', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    for (const [name, method, url, body] of routes(s.con_id)) {
      const res = await call(t, method, url, { headers: { 'x-api-key': t.apiKey }, body });
      assertReply(res, 401, MISSING_AUTHORIZATION, name);
    }
    assert.equal(await messageCount(t), 1);
    assert.equal((await read(t, amina, s.con_id)).statusCode, 200, 'DELETE without a token left nothing');
  });

  it('refuses a token revoked by POST logout with 401 INVALID_TOKEN "JWT has been revoked." on every chat route; other tokens work', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const revoked = { authorization: `Bearer ${t.token(amina)}`, 'x-api-key': t.apiKey };
    const out = await call(t, 'POST', `${API}/logout`, { headers: revoked });
    assert.equal(out.statusCode, 200, out.body);
    for (const [name, method, url, body] of routes(s.con_id)) {
      assertReply(await call(t, method, url, { headers: revoked, body }), 401, REVOKED, name);
    }
    assert.equal(await messageCount(t), 1);
    assert.equal((await read(t, amina, s.con_id)).statusCode, 200, 'another token of the same user still works');
  });

  it('refuses a disabled user 403 "You are not logged in."', async () => {
    const t = await startTestSouk();
    assertReply(await list(t, USERS.disabled), 403, { code: 'FORBIDDEN', message: 'You are not logged in.' });
  });
});

describe('N2: parameters', () => {
  it('refuses a missing or invalid required id with 400 "<name> is required and must be a positive integer." on every route', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const badQueries = ['', '=', '=0', '=-1', '=abc', '=1.5', '=12abc', `=${2 ** 53}`, '=1&NAME=2', '=%201'];
    const cases: Array<[string, 'GET' | 'DELETE', string]> = [
      ['con_id', 'GET', CONVERSATION],
      ['con_id', 'DELETE', CONVERSATION],
      ['listing_id', 'GET', CHECK],
    ];
    for (const [name, method, path] of cases) {
      for (const q of badQueries) {
        const url = q === '' ? path : `${path}?${name}${q.replace('NAME', name)}`;
        assertReply(await call(t, method, url, { as: amina }), 400, required(name), `${method} ${url}`);
      }
    }
    const badJson = [undefined, null, '', 0, -1, 1.5, true, '12abc', [s.con_id], { id: 1 }, 2 ** 53];
    for (const value of badJson) {
      const sendBody = { con_id: value, listing_id: BIKE, text: 'x' };
      assertReply(await post(t, amina, sendBody), 400, required('con_id'), `POST con_id ${JSON.stringify(value)}`);
      assertReply(
        await call(t, 'PUT', MESSAGE, { as: youssef, body: { con_id: value, message_id: 1 } }),
        400,
        required('con_id'),
        `PUT con_id ${JSON.stringify(value)}`,
      );
      assertReply(
        await call(t, 'PUT', MESSAGE, { as: youssef, body: { con_id: s.con_id, message_id: value } }),
        400,
        required('message_id'),
        `PUT message_id ${JSON.stringify(value)}`,
      );
    }
    // D3 in an answer's listing_id: the same words as the seed operations.
    for (const value of [0, -1, 'abc', true]) {
      assertReply(await post(t, amina, { con_id: s.con_id, listing_id: value, text: 'x' }), 400, required('listing_id'));
    }
    assert.equal(await messageCount(t), 1, 'nothing stored');
    assert.equal((await read(t, amina, s.con_id)).statusCode, 200, 'nothing left');
  });

  it('takes ids as JSON integers or strings of digits; null and "" are absent', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const m = await send(t, youssef, s.con_id, 'Yes', { con_id: String(s.con_id), listing_id: String(BIKE), temp_id: '' });
    assert.equal(m.con_id, s.con_id);
    assert.equal(m.temp_id, '');
    // listing_id and temp_id null or "": absent.
    for (const value of [null, '']) {
      const r = await send(t, youssef, s.con_id, 'Still here', { listing_id: value, temp_id: value });
      assert.equal(r.temp_id, '');
    }
    assertReply(await call(t, 'PUT', MESSAGE, { as: amina, body: { con_id: String(s.con_id), message_id: String(m.message_id) } }), 200, 1);
    assertReply(await read(t, amina, `00${s.con_id}`, '&page=&per_page=&after_id=&limit='), 200, json(await read(t, amina, s.con_id)));
    assertReply(await check(t, amina, `0${BIKE}`), 200, json(await check(t, amina, BIKE)));
  });

  it('refuses page and per_page that are not positive integers, and per_page over 100, on the paged reads', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const cases: Array<[string, string]> = [
      ['page=0', 'page must be a positive integer.'],
      ['page=-1', 'page must be a positive integer.'],
      ['page=abc', 'page must be a positive integer.'],
      ['page=1.5', 'page must be a positive integer.'],
      ['page=1&page=2', 'page must be a positive integer.'],
      [`page=${2 ** 53}`, 'page must be a positive integer.'],
      ['per_page=0', 'per_page must be a positive integer.'],
      ['per_page=x', 'per_page must be a positive integer.'],
      ['per_page=101', 'per_page must be between 1 and 100.'],
      ['per_page=1000', 'per_page must be between 1 and 100.'],
    ];
    for (const [q, message] of cases) {
      assertReply(await list(t, amina, `?${q}`), 400, bad(message), `my/chat ${q}`);
      assertReply(await read(t, amina, s.con_id, `&${q}`), 400, bad(message), `conversation ${q}`);
      assertReply(await check(t, amina, BIKE, `&${q}`), 400, bad(message), `check ${q}`);
    }
    assert.equal((await list(t, amina, '?per_page=100&page=1')).statusCode, 200);
    assert.equal((await read(t, amina, s.con_id, '&per_page=100')).statusCode, 200);
  });

  it('ignores unknown fields and headers: a start with con_id 0, X-LOCALE, X-LOCALE-CURRENCY: null, Cache-Control', async () => {
    const t = await startTestSouk();
    const appHeaders = { ...t.auth(amina), 'x-locale': 'fr', 'x-locale-currency': 'null', 'cache-control': 'no-cache' };
    const started = await t.post(`${API}/my/chat/conversation`, { con_id: 0, listing_id: BIKE, text: 'Hi', colour: 'red' }, appHeaders);
    assert.equal(started.statusCode, 200, started.body);
    const conId = json(started).con_id;
    assert.equal(conId, 1);
    const answer = await call(t, 'POST', MESSAGE, {
      headers: { ...t.auth(youssef), 'x-locale-currency': 'null', 'x-locale': 'ar' },
      body: { con_id: conId, listing_id: BIKE, text: 'Yes', unknown: { deep: [1] } },
    });
    assert.equal(answer.statusCode, 200, answer.body);
    const reads = await call(t, 'GET', `${CONVERSATION}?con_id=${conId}&foo=bar`, { headers: appHeaders });
    assert.equal(reads.statusCode, 200);
    assert.equal(json(reads).messages.length, 2);
    assertReply(await call(t, 'GET', `${LIST}?unknown=1`, { headers: appHeaders }), 200, json(await list(t, amina)));
  });

  it('reads a PUT whose ids are in the query with an empty JSON body (the apps)', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const m = await send(t, youssef, s.con_id, 'Yes');
    const url = `${MESSAGE}?con_id=${s.con_id}&message_id=${m.message_id}`;
    assertReply(await call(t, 'PUT', url, { as: amina, body: '' }), 200, 1);
    assertReply(await call(t, 'PUT', url, { as: amina, body: '{}' }), 200, 0);
    assertReply(await call(t, 'PUT', url, { as: amina }), 200, 0, 'no body at all');
    assertReply(await call(t, 'PUT', `${MESSAGE}?con_id=${s.con_id}`, { as: amina, body: '' }), 400, required('message_id'));
    // An empty JSON body is {} on every route, a seed route too.
    assertReply(await call(t, 'DELETE', `${CONVERSATION}?con_id=${s.con_id}`, { as: amina, body: '' }), 200, 1);
    assertReply(await call(t, 'GET', LIST, { as: amina, body: '' }), 200, {
      data: [],
      pagination: { total: 0, per_page: 20, current_page: 1, total_pages: 0 },
    });
    assertReply(await call(t, 'POST', `${API}/my/chat/conversation`, { as: amina, body: '' }), 400, required('listing_id'));
  });

  it('reads form-urlencoded bodies on POST and PUT', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const res = await call(t, 'POST', MESSAGE, {
      as: youssef,
      form: { con_id: String(s.con_id), listing_id: String(BIKE), text: 'Form answer', temp_id: '' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const m = json(res);
    exact(Object.keys(m), [
      'message_id',
      'con_id',
      'source_id',
      'message',
      'meta',
      'attachments',
      'type',
      'is_read',
      'created_at',
      'temp_id',
    ]);
    assert.deepEqual([m.con_id, m.source_id, m.message, m.temp_id], [s.con_id, youssef, 'Form answer', '']);
    const retried = await call(t, 'POST', MESSAGE, { as: youssef, form: { con_id: String(s.con_id), text: 'again', temp_id: '77' } });
    assert.equal(json(retried).temp_id, '77');
    assertReply(await call(t, 'PUT', MESSAGE, { as: amina, form: { con_id: String(s.con_id), message_id: String(m.message_id) } }), 200, 1);
    assertReply(
      await call(t, 'PUT', MESSAGE, { as: amina, form: { con_id: String(s.con_id), message_id: '' } }),
      400,
      required('message_id'),
    );
  });

  it('takes the JSON body over the query string when both give a value', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const m = await send(t, youssef, s.con_id, 'Yes');
    // The query names a conversation amina cannot see: the body's value is the one used.
    const other = await start(t, sara, LISTINGS.aminasOwn, 'Chair?');
    const m2 = json(
      await call(t, 'POST', `${MESSAGE}?con_id=${other.con_id}`, { as: youssef, body: { con_id: s.con_id, text: 'Body wins' } }),
    );
    assert.equal(m2.con_id, s.con_id);
    assertReply(
      await call(t, 'PUT', `${MESSAGE}?con_id=999&message_id=999`, { as: amina, body: { con_id: s.con_id, message_id: m.message_id } }),
      200,
      1,
    );
    assertReply(
      await call(t, 'PUT', `${MESSAGE}?con_id=${s.con_id}&message_id=${m2.message_id}`, { as: amina, body: { con_id: 999 } }),
      403,
      NO_PERMISSION,
    );
    // The query alone is enough for a POST's con_id.
    const m3 = json(await call(t, 'POST', `${MESSAGE}?con_id=${s.con_id}`, { as: youssef, body: { text: 'From the query' } }));
    assert.equal(m3.con_id, s.con_id);
  });
});

describe('N3: access to a conversation', () => {
  it('answers a stranger, a participant who left and an unknown id alike: 403 A on GET, POST, PUT and DELETE (the Fix)', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const m = await send(t, youssef, s.con_id, 'Yes');
    const gone = await start(t, sara, BIKE, 'Me too');
    assertReply(await leave(t, sara, gone.con_id), 200, 1);
    const refusals: Array<[string, number, number]> = [
      ['a stranger', sara, s.con_id],
      ['a participant who left', sara, gone.con_id],
      ['an unknown id', amina, 999_999],
      ['the largest id', amina, Number.MAX_SAFE_INTEGER],
    ];
    const before = await messageCount(t);
    for (const [who, as, conId] of refusals) {
      assertReply(await read(t, as, conId), 403, NO_PERMISSION, `GET, ${who}`);
      assertReply(await post(t, as, { con_id: conId, text: 'intruder' }), 403, NO_PERMISSION, `POST, ${who}`);
      assertReply(await markRead(t, as, conId, m.message_id), 403, NO_PERMISSION, `PUT, ${who}`);
      assertReply(await leave(t, as, conId), 403, NO_PERMISSION, `DELETE, ${who}`);
    }
    assert.equal(await messageCount(t), before, 'nothing stored');
    const rows = json(await read(t, youssef, s.con_id)).messages as Json[];
    assert.equal(rows.find((r) => r.message_id === String(m.message_id))!.is_read, '0', 'nothing marked read');
    assert.equal(json(await read(t, youssef, s.con_id)).sender_delete, false, 'nothing left');
  });

  it("refuses a POST whose listing_id is not the conversation's listing with the same 403", async () => {
    const t = await startTestSouk();
    const s = await start(t);
    for (const listingId of [LISTINGS.table, LISTINGS.aminasOwn, 999_999]) {
      assertReply(await post(t, amina, { con_id: s.con_id, listing_id: listingId, text: 'x' }), 403, NO_PERMISSION);
    }
    assert.equal(await messageCount(t), 1);
  });
});

describe('GET my/chat, current', () => {
  it('answers every field of a row in the order of original/03-chat.txt [029], typed as N4 says, for each reader', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const m = await send(t, youssef, s.con_id, 'Yes, <b>come</b> "tomorrow"');
    const item = (reader: number) => {
      const other =
        reader === amina
          ? { display_name: 'Youssef B.', user_login: 'youssef', other_id: '2' }
          : { display_name: 'Amina K.', user_login: 'amina', other_id: '1' };
      return {
        con_id: s.con_id,
        listing_id: BIKE,
        sender_id: amina,
        recipient_id: youssef,
        sender_delete: false,
        recipient_delete: false,
        last_message_id: m.message_id,
        sender_review: false,
        recipient_review: false,
        invert_review: false,
        created_at: s.created_at,
        updated_at: m.created_at,
        message: m.message,
        is_read: '0',
        source_id: String(youssef),
        last_message: m.message,
        last_message_created_at: m.created_at,
        ...other,
        listing: s.listing,
        unread_count: 1,
        sender: s.sender,
        recipient: s.recipient,
      };
    };
    const pagination = { total: 1, per_page: 20, current_page: 1, total_pages: 1 };
    assertReply(await list(t, amina), 200, { data: [item(amina)], pagination });
    assertReply(await list(t, youssef), 200, { data: [item(youssef)], pagination });
    assertReply(await list(t, sara), 200, { data: [], pagination: { total: 0, per_page: 20, current_page: 1, total_pages: 0 } });
    // unread_count is the reader's: an int, also when it is not 0 (the Fix).
    await send(t, youssef, s.con_id, 'Hello?');
    await send(t, youssef, s.con_id, 'Still there?');
    const [row3] = json(await list(t, amina)).data as Json[];
    assert.equal(row3!.unread_count, 3);
    assert.equal(json(await list(t, youssef)).data[0].unread_count, 1);
  });

  it('lists the latest message first, pages, and counts the totals', async () => {
    const doc = marketplace();
    doc.listings!.push(...[201, 202, 203].map((id) => ({ id, owner_id: youssef, title: `Listing ${id}` })));
    const t = await startTestSouk({}, doc);
    const a = await start(t, amina, 201);
    const b = await start(t, amina, 202);
    const c = await start(t, amina, 203);
    const ids = async (q = '') => (json(await list(t, amina, q)).data as Json[]).map((r) => r.con_id);
    assert.deepEqual(await ids(), [c.con_id, b.con_id, a.con_id]);
    await send(t, youssef, a.con_id, 'Answer to the first');
    assert.deepEqual(await ids(), [a.con_id, c.con_id, b.con_id]);
    const page = async (q: string) => {
      const r = json(await list(t, amina, q));
      return [(r.data as Json[]).map((i) => i.con_id), r.pagination];
    };
    const p = (current: number) => ({ total: 3, per_page: 2, current_page: current, total_pages: 2 });
    assert.deepEqual(await page('?per_page=2'), [[a.con_id, c.con_id], p(1)]);
    assert.deepEqual(await page('?per_page=2&page=2'), [[b.con_id], p(2)]);
    assert.deepEqual(await page('?per_page=2&page=3'), [[], p(3)]);
    assert.deepEqual(await page(`?per_page=2&page=${Number.MAX_SAFE_INTEGER}`), [[], p(Number.MAX_SAFE_INTEGER)]);
    // The seller sees the same three.
    assert.equal(json(await list(t, youssef)).pagination.total, 3);
  });

  it('shows listing null once the listing is removed from the catalog; the conversation stays', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const { deleted } = await deleteListings(t.souk.store, [BIKE]);
    assert.deepEqual(deleted, [BIKE]);
    const r = json(await list(t, amina));
    assert.equal(r.data.length, 1);
    assert.equal(r.data[0].con_id, s.con_id);
    assert.equal(r.data[0].listing, null);
    assert.deepEqual(Object.keys(r.data[0]).slice(-4), ['listing', 'unread_count', 'sender', 'recipient']);
    assert.equal(json(await read(t, youssef, s.con_id)).listing, null);
    // Answering still works: the conversation is there.
    await send(t, youssef, s.con_id, 'Sold, sorry');
  });
});

describe('GET my/chat, classic', () => {
  it('answers a bare array of rows as original-2x/03-chat.txt [029]: the conversation fields as strings, unread_count an int', async () => {
    const t = await startTestSouk({ CHAT_REPLY_FORMAT: 'classic' });
    const s = await start(t);
    const m = await send(t, youssef, s.con_id, 'Yes');
    assertReply(await list(t, amina), 200, [
      {
        con_id: String(s.con_id),
        listing_id: String(BIKE),
        sender_id: '1',
        recipient_id: '2',
        sender_delete: '0',
        recipient_delete: '0',
        last_message_id: String(m.message_id),
        sender_review: '0',
        recipient_review: '0',
        invert_review: '0',
        created_at: s.created_at,
        message: 'Yes',
        is_read: '0',
        source_id: '2',
        last_message: 'Yes',
        last_message_created_at: m.created_at,
        display_name: 'Youssef B.',
        user_login: 'youssef',
        other_id: '2',
        listing: s.listing,
        unread_count: 1,
        sender: s.sender,
        // All seven keys (2.2.1 sent only name and profile_picture).
        recipient: s.recipient,
      },
    ]);
    assertReply(await list(t, sara), 200, []);
    // Flags as strings once set: the seller's row after the buyer left.
    assertReply(await leave(t, amina, s.con_id), 200, 1);
    const [row] = json(await list(t, youssef)) as Json[];
    assert.equal(row!.sender_delete, '1');
    assert.equal(row!.recipient_delete, '0');
    assert.equal(row!.unread_count, 1);
  });

  it('leaves out conversations whose listing was removed, and shows at most 50, latest first', async () => {
    const doc = marketplace();
    const extra = Array.from({ length: 51 }, (_, i) => 201 + i);
    doc.listings!.push(...extra.map((id) => ({ id, owner_id: youssef, title: `Listing ${id}` })));
    const t = await startTestSouk({ CHAT_REPLY_FORMAT: 'classic' }, doc);
    const cons: number[] = [];
    for (const id of extra) cons.push((await start(t, amina, id, `About ${id}`)).con_id);
    let rows = json(await list(t, amina)) as Json[];
    assert.ok(Array.isArray(rows));
    assert.equal(rows.length, 50);
    assert.deepEqual(
      rows.map((r) => r.con_id),
      cons.slice(1).reverse().map(String),
    );
    // Paging parameters do not page the classic list.
    assert.equal((json(await list(t, amina, '?per_page=2&page=2')) as Json[]).length, 50);
    await deleteListings(t.souk.store, [extra[50]!, extra[49]!]);
    rows = json(await list(t, amina)) as Json[];
    assert.equal(rows.length, 49);
    assert.deepEqual(
      rows.map((r) => r.con_id),
      cons.slice(0, 49).reverse().map(String),
    );
    assert.ok(rows.every((r) => r.listing !== null));
  });
});

describe('GET my/chat/check', () => {
  it('answers false with no open conversation; 403 for the owner, a missing listing and a trashed one', async () => {
    const t = await startTestSouk();
    const res = await check(t, amina, BIKE);
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, 'false');
    await start(t);
    for (const [who, as, listingId] of [
      ['the owner', youssef, BIKE],
      ['a missing listing', amina, 999_999],
      ['a trashed listing', amina, LISTINGS.trashed],
      ["the caller's own listing", amina, LISTINGS.aminasOwn],
    ] as const) {
      assertReply(await check(t, as, listingId), 403, NO_PERMISSION, who);
    }
    assert.equal((await check(t, sara, BIKE)).body, 'false', "another buyer has none: amina's is not shown");
    assert.equal((await check(t, amina, LISTINGS.table)).body, 'false');
    assertReply(await call(t, 'GET', CHECK, { as: amina }), 400, required('listing_id'));
  });

  it('answers the open conversation as GET my/chat/conversation does (current), and false once the buyer left', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const m = await send(t, youssef, s.con_id, 'Yes');
    const expected = {
      ...currentConversation(s, {
        unread_count: 1,
        last_message_id: m.message_id,
        updated_at: m.created_at,
        last_message: 'Yes',
        last_message_created_at: m.created_at,
      }),
      messages: [row(m), row(s.newMessage)],
      pagination: { total: 2, per_page: 50, current_page: 1, total_pages: 1 },
    };
    assertReply(await check(t, amina, BIKE), 200, expected);
    assertReply(await read(t, amina, s.con_id), 200, expected);
    assert.equal(json(await check(t, amina, BIKE, '&per_page=1&page=2')).messages[0].message_id, String(s.newMessage.message_id));
    assertReply(await leave(t, amina, s.con_id), 200, 1);
    assert.equal((await check(t, amina, BIKE)).body, 'false');
  });

  it('answers false once the seller left: the next start opens a new conversation', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    assertReply(await leave(t, youssef, s.con_id), 200, 1);
    assert.equal((await check(t, amina, BIKE)).body, 'false');
    const again = await start(t);
    assert.notEqual(again.con_id, s.con_id);
    assert.equal(json(await check(t, amina, BIKE)).con_id, again.con_id);
  });

  it('classic: the classic conversation object and the latest 50 messages, oldest first', async () => {
    const t = await startTestSouk({ CHAT_REPLY_FORMAT: 'classic' });
    const res = await check(t, amina, BIKE);
    assert.equal(res.body, 'false');
    const s = await start(t);
    const sent = [s.newMessage];
    for (let i = 1; i <= 51; i++) sent.push(await send(t, i % 2 ? youssef : amina, s.con_id, `Message ${i}`));
    const last = sent.at(-1)!;
    assertReply(await check(t, amina, BIKE), 200, {
      ...classicConversation(s, { last_message_id: last.message_id }),
      messages: sent.slice(-50).map((m) => classicRow(m)),
    });
    assertReply(await check(t, youssef, BIKE), 403, NO_PERMISSION);
  });
});

describe('GET my/chat/conversation', () => {
  it('marks nothing read', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    await send(t, youssef, s.con_id, 'Yes');
    for (let i = 0; i < 2; i++) {
      const r = json(await read(t, amina, s.con_id));
      assert.equal(r.unread_count, 1);
      assert.deepEqual(
        (r.messages as Json[]).map((m) => m.is_read),
        ['0', '0'],
      );
    }
    assert.equal(json(await list(t, amina)).data[0].unread_count, 1);
    assert.equal(json(await list(t, youssef)).data[0].unread_count, 1);
  });

  it('current: newest first, a page at a time, with the pagination of the whole conversation', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const sent = [s.newMessage];
    for (let i = 1; i <= 4; i++) sent.push(await send(t, i % 2 ? youssef : amina, s.con_id, `Message ${i}`));
    const newest = [...sent].reverse().map((m) => row(m));
    const page = async (q: string) => {
      const r = json(await read(t, youssef, s.con_id, q));
      return { messages: r.messages, pagination: r.pagination };
    };
    const p = (current: number, perPage = 2) => ({
      total: 5,
      per_page: perPage,
      current_page: current,
      total_pages: Math.ceil(5 / perPage),
    });
    exact(await page(''), { messages: newest, pagination: p(1, 50) });
    exact(await page('&per_page=2'), { messages: newest.slice(0, 2), pagination: p(1) });
    exact(await page('&per_page=2&page=2'), { messages: newest.slice(2, 4), pagination: p(2) });
    exact(await page('&per_page=2&page=3'), { messages: newest.slice(4), pagination: p(3) });
    exact(await page('&per_page=2&page=4'), { messages: [], pagination: p(4) });
    // The whole object, as the youssef reads it.
    const last = sent.at(-1)!;
    assertReply(await read(t, youssef, s.con_id, '&per_page=1'), 200, {
      ...currentConversation(s, {
        unread_count: 3,
        last_message_id: last.message_id,
        updated_at: last.created_at,
        last_message: last.message,
        last_message_created_at: last.created_at,
      }),
      messages: newest.slice(0, 1),
      pagination: p(1, 1),
    });
  });

  it('classic: the latest `limit` messages in the order sent; a conversation of more than 50 shows its newest (the Fix)', async () => {
    const t = await startTestSouk({ CHAT_REPLY_FORMAT: 'classic' });
    const s = await start(t);
    const sent = [s.newMessage];
    for (let i = 1; i <= 54; i++) sent.push(await send(t, i % 2 ? youssef : amina, s.con_id, `Message ${i}`));
    const last = sent.at(-1)!;
    const expected = (messages: Json[]) => ({
      ...classicConversation(s, { last_message_id: last.message_id }),
      messages: messages.map((m) => classicRow(m)),
    });
    assertReply(await read(t, amina, s.con_id), 200, expected(sent.slice(-50)));
    const rows = json(await read(t, amina, s.con_id)).messages as Json[];
    assert.equal(rows.at(-1)!.message_id, String(last.message_id), 'the newest message is there');
    assert.equal(rows[0]!.message_id, String(sent[5]!.message_id));
    assertReply(await read(t, amina, s.con_id, '&limit=3'), 200, expected(sent.slice(-3)));
    assertReply(await read(t, amina, s.con_id, '&limit=500'), 200, expected(sent));
    assertReply(await read(t, amina, s.con_id, '&limit=1'), 200, expected(sent.slice(-1)));
    for (const limit of ['501', '0', '-1', 'abc', '1.5']) {
      assertReply(await read(t, amina, s.con_id, `&limit=${limit}`), 400, bad('limit must be between 1 and 500.'), `limit=${limit}`);
    }
  });

  it('after_id: only messages with a larger id, in both forms', async () => {
    for (const format of ['current', 'classic'] as const) {
      const t = await startTestSouk({ CHAT_REPLY_FORMAT: format });
      const s = await start(t);
      const sent = [s.newMessage];
      for (let i = 1; i <= 4; i++) sent.push(await send(t, i % 2 ? youssef : amina, s.con_id, `Message ${i}`));
      const after = sent[2]!.message_id;
      const r = json(await read(t, amina, s.con_id, `&after_id=${after}`));
      if (format === 'current') {
        exact(
          r.messages,
          [sent[4], sent[3]].map((m) => row(m)),
        );
        exact(r.pagination, { total: 2, per_page: 50, current_page: 1, total_pages: 1 });
        exact(json(await read(t, amina, s.con_id, `&after_id=${after}&per_page=1&page=2`)).messages, [row(sent[3]!)]);
      } else {
        exact(
          r.messages,
          [sent[3], sent[4]].map((m) => classicRow(m)),
        );
        exact(json(await read(t, amina, s.con_id, `&after_id=${after}&limit=1`)).messages, [classicRow(sent[4]!)]);
      }
      assert.equal(json(await read(t, amina, s.con_id, `&after_id=${sent[4]!.message_id}`)).messages.length, 0, format);
      assert.equal(json(await read(t, amina, s.con_id, '&after_id=0')).messages.length, 5, format);
      for (const v of ['-1', 'abc', '1.5']) {
        assertReply(
          await read(t, amina, s.con_id, `&after_id=${v}`),
          400,
          bad('after_id must be a non-negative integer.'),
          `${format} after_id=${v}`,
        );
      }
    }
  });

  it('orders messages sent in the same second by message_id (the Fix)', async () => {
    for (const format of ['current', 'classic'] as const) {
      const t = await startTestSouk({ CHAT_REPLY_FORMAT: format });
      const s = await start(t);
      const ids = [s.newMessage.message_id];
      for (let i = 1; i <= 6; i++) ids.push((await send(t, i % 2 ? youssef : amina, s.con_id, `Same second ${i}`)).message_id);
      // All in one second, and the clock put the later ones first within it: only the id can order them.
      const [first] = await t.souk.store.db.selectFrom('messages').select('created_at').orderBy('id').limit(1).execute();
      const base = Math.floor(Number(first!.created_at) / 1000) * 1000;
      for (const [i, id] of ids.entries()) {
        await t.souk.store.db
          .updateTable('messages')
          .set({ created_at: base + 900 - i * 100 })
          .where('id', '=', id)
          .execute();
      }
      const got = (json(await read(t, amina, s.con_id)).messages as Json[]).map((m) => Number(m.message_id));
      assert.deepEqual(got, format === 'current' ? [...ids].reverse() : ids, format);
      const times = new Set((json(await read(t, amina, s.con_id)).messages as Json[]).map((m) => m.created_at));
      assert.equal(times.size, 1, 'one second');
    }
  });
});

describe('POST my/chat/message', () => {
  it('answers the message object; the conversation’s last_message_id and updated_at move to it', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    await sleep(1100);
    const before = Date.now();
    const res = await post(t, youssef, { con_id: s.con_id, listing_id: BIKE, text: 'Yes, it is. Want to see it tomorrow?' });
    assert.equal(res.statusCode, 200, res.body);
    const m = json(res);
    exact(m, {
      message_id: s.newMessage.message_id + 1,
      con_id: s.con_id,
      source_id: youssef,
      message: 'Yes, it is. Want to see it tomorrow?',
      meta: null,
      attachments: null,
      type: 'text',
      is_read: 0,
      created_at: m.created_at,
      temp_id: '',
    });
    assert.ok(m.created_at >= new Date(before).toISOString().slice(0, 19).replace('T', ' '));
    assert.notEqual(m.created_at, s.created_at, 'a second later');
    const r = json(await read(t, amina, s.con_id));
    assert.equal(r.last_message_id, m.message_id);
    assert.equal(r.updated_at, m.created_at);
    assert.equal(r.created_at, s.created_at);
    assert.equal(r.last_message, m.message);
    const item = json(await list(t, amina)).data[0];
    assert.deepEqual([item.last_message_id, item.updated_at, item.message, item.source_id], [m.message_id, m.created_at, m.message, '2']);
  });

  it('applies D6 to text and files, storing nothing on a refusal', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const refusals: Array<[Json, unknown]> = [
      [{}, bad('text is required and must be a string.')],
      [{ text: null }, bad('text is required and must be a string.')],
      [{ text: 12 }, bad('text is required and must be a string.')],
      [{ text: '' }, bad('text is required: send a non-empty message or attach at least one file.')],
      [{ text: ' \n\t ' }, bad('text is required: send a non-empty message or attach at least one file.')],
      [{ text: 'x'.repeat(5001) }, bad('text must be at most 5000 characters.')],
      [{ text: 'a\u0000b' }, bad('text must not contain the NUL character (U+0000).')],
      [
        { text: 'half \ud800 a pair' },
        bad('text must be valid Unicode: it holds half of a surrogate pair (U+D800-U+DFFF) without the other half.'),
      ],
      [
        { text: 'x', files: 'a.jpg' },
        bad('files must be an array of at most 10 objects {url, name?, mime_type?, size?} with an http(s) url.'),
      ],
      [
        { text: 'x', files: [{ url: 'ftp://x.example/a.jpg' }] },
        bad('files must be an array of at most 10 objects {url, name?, mime_type?, size?} with an http(s) url.'),
      ],
      [
        { text: 'x', files: Array.from({ length: 11 }, (_, i) => ({ url: `https://x.example/${i}.jpg` })) },
        bad('files must be an array of at most 10 objects {url, name?, mime_type?, size?} with an http(s) url.'),
      ],
      [{ text: 'x', temp_id: 'abc' }, bad('temp_id must be an integer or a string of digits.')],
      [{ text: 'x', temp_id: 1.5 }, bad('temp_id must be an integer or a string of digits.')],
    ];
    for (const [fields, body] of refusals) {
      assertReply(await post(t, youssef, { con_id: s.con_id, ...fields }), 400, body, JSON.stringify(fields).slice(0, 60));
    }
    assert.equal(await messageCount(t), 1);
    // The limits themselves are accepted; text is stored verbatim.
    const long = await send(t, youssef, s.con_id, 'é'.repeat(5000));
    assert.equal(long.message.length, 5000);
    const verbatim = await send(t, youssef, s.con_id, '  <script>alert(1)</script> 😀 \n');
    assert.equal(verbatim.message, '  <script>alert(1)</script> 😀 \n');
    const files = [{ url: 'https://cdn.example/a.jpg', name: 'a.jpg', mime_type: 'image/jpeg', size: 1234 }];
    const attachment = await send(t, youssef, s.con_id, '', { files });
    assert.equal(attachment.type, 'attachment');
    assert.deepEqual(attachment.attachments, files);
    const both = await send(t, youssef, s.con_id, 'See photo', { files });
    assert.equal(both.type, 'text');
    const rows = json(await read(t, amina, s.con_id, '&per_page=2')).messages as Json[];
    exact(rows, [row(both), row(attachment)]);
    assert.equal(typeof rows[0]!.attachments, 'string', 'the JSON text of the array');
  });

  it('returns the stored message on a retry with the same temp_id, storing nothing new', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const first = await send(t, youssef, s.con_id, 'Yes', { temp_id: 1234567 });
    assert.equal(first.temp_id, '1234567');
    await sleep(1100);
    const again = await send(t, youssef, s.con_id, 'Yes (edited on retry)', { temp_id: '1234567' });
    exact(again, first);
    assert.equal(await messageCount(t), 2);
    // Another sender, or another temp_id, is another message.
    const other = await send(t, amina, s.con_id, 'Yes', { temp_id: 1234567 });
    assert.notEqual(other.message_id, first.message_id);
    const next = await send(t, youssef, s.con_id, 'Yes', { temp_id: -5 });
    assert.equal(next.temp_id, '-5');
    assert.equal(await messageCount(t), 4);
  });

  it('refuses 403 "The other participant has left this conversation." once the other side deleted it (the Fix)', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    assertReply(await leave(t, youssef, s.con_id), 200, 1);
    assertReply(await post(t, amina, { con_id: s.con_id, listing_id: BIKE, text: 'Hello?' }), 403, OTHER_LEFT);
    assertReply(await post(t, amina, { con_id: s.con_id, text: 'Hello?', temp_id: 1 }), 403, OTHER_LEFT);
    // The one who left is not a participant any more.
    assertReply(await post(t, youssef, { con_id: s.con_id, text: 'Back' }), 403, NO_PERMISSION);
    assert.equal(await messageCount(t), 1);
    // The buyer can still read it.
    assert.equal(json(await read(t, amina, s.con_id)).recipient_delete, true);
  });
});

describe('PUT my/chat/message', () => {
  it("marks the message and the other participant's earlier unread ones read: 1, then 0", async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const y1 = await send(t, youssef, s.con_id, 'One');
    const a2 = await send(t, amina, s.con_id, 'Two');
    const y3 = await send(t, youssef, s.con_id, 'Three');
    const y4 = await send(t, youssef, s.con_id, 'Four');
    const readState = async () =>
      Object.fromEntries((json(await read(t, youssef, s.con_id)).messages as Json[]).map((m) => [m.message, m.is_read]));
    assertReply(await markRead(t, amina, s.con_id, y3.message_id), 200, 1);
    assert.deepEqual(await readState(), { Four: '0', Three: '1', Two: '0', One: '1', 'Is the bike still for sale?': '0' });
    assert.equal(json(await read(t, amina, s.con_id)).unread_count, 1);
    assertReply(await markRead(t, amina, s.con_id, y3.message_id), 200, 0, 'already read');
    assertReply(await markRead(t, amina, s.con_id, y1.message_id), 200, 0, 'an earlier one, already read');
    assertReply(await markRead(t, amina, s.con_id, y4.message_id), 200, 1);
    assert.equal(json(await list(t, amina)).data[0].unread_count, 0);
    assert.equal(json(await list(t, amina)).data[0].is_read, '1');
    // Youssef reads amina's: the last of hers marks both.
    assertReply(await markRead(t, youssef, s.con_id, a2.message_id), 200, 1);
    assert.deepEqual(await readState(), { Four: '1', Three: '1', Two: '1', One: '1', 'Is the bike still for sale?': '1' });
  });

  it("answers 0 and changes nothing for the caller's own message, an unknown one, or one of another conversation (the Fix)", async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const y = await send(t, youssef, s.con_id, 'Yes');
    const elsewhere = await start(t, sara, BIKE, 'Sara here');
    assertReply(await markRead(t, amina, s.con_id, s.newMessage.message_id), 200, 0, 'her own');
    assertReply(await markRead(t, youssef, s.con_id, y.message_id), 200, 0, 'his own');
    assertReply(await markRead(t, youssef, s.con_id, elsewhere.newMessage.message_id), 200, 0, 'another conversation');
    assertReply(await markRead(t, amina, s.con_id, 999_999), 200, 0, 'unknown');
    const states = (json(await read(t, amina, s.con_id)).messages as Json[]).map((m) => m.is_read);
    assert.deepEqual(states, ['0', '0']);
    assert.equal(json(await list(t, youssef, '')).data.find((r: Json) => r.con_id === elsewhere.con_id).unread_count, 1);
  });
});

describe('DELETE my/chat/conversation', () => {
  it('answers 1, then 403; the other participant still sees it; a later start opens a new conversation', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    await send(t, youssef, s.con_id, 'Yes');
    const res = await leave(t, amina, s.con_id);
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, '1');
    assertReply(await leave(t, amina, s.con_id), 403, NO_PERMISSION, 'a second delete');
    assertReply(await read(t, amina, s.con_id), 403, NO_PERMISSION);
    assertReply(await markRead(t, amina, s.con_id, 2), 403, NO_PERMISSION);
    assert.deepEqual(json(await list(t, amina)).data, []);
    // The other participant still sees it, with the buyer's flag set.
    const [row] = json(await list(t, youssef)).data as Json[];
    assert.deepEqual([row!.con_id, row!.sender_delete, row!.recipient_delete], [s.con_id, true, false]);
    const seen = json(await read(t, youssef, s.con_id));
    assert.equal(seen.messages.length, 2);
    assert.equal(seen.sender_delete, true);
    // D6: a later start by the same buyer opens a new conversation.
    const again = await start(t, amina, BIKE, 'Me again');
    assert.notEqual(again.con_id, s.con_id);
    assert.equal(again.unread_count, 0);
    assert.deepEqual(
      (json(await list(t, youssef)).data as Json[]).map((r) => r.con_id),
      [again.con_id, s.con_id],
    );
    assert.deepEqual(
      (json(await list(t, amina)).data as Json[]).map((r) => r.con_id),
      [again.con_id],
    );
    // The seller leaves the old one too: it is gone from every list, and nobody can reach it.
    assertReply(await leave(t, youssef, s.con_id), 200, 1);
    assertReply(await read(t, youssef, s.con_id), 403, NO_PERMISSION);
  });

  it('classic: the seller sees sender_delete 1 after the buyer left', async () => {
    const t = await startTestSouk({ CHAT_REPLY_FORMAT: 'classic' });
    const s = await start(t);
    assertReply(await leave(t, amina, s.con_id), 200, 1);
    assertReply(await read(t, youssef, s.con_id), 200, {
      ...classicConversation(s, { sender_delete: 1 }),
      messages: [classicRow(s.newMessage)],
    });
  });
});

describe('concurrency', () => {
  it('stores every message when both participants send 20 at once; last_message_id is the largest id', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        post(t, i % 2 ? youssef : amina, { con_id: s.con_id, listing_id: BIKE, text: `Concurrent ${i}` }),
      ),
    );
    for (const r of replies) assert.equal(r.statusCode, 200, r.body);
    const ids = replies.map((r) => json(r).message_id as number);
    assert.equal(new Set(ids).size, 40);
    const r = json(await read(t, amina, s.con_id, '&per_page=100'));
    assert.equal(r.messages.length, 41);
    assert.equal(r.pagination.total, 41);
    const largest = Math.max(...ids);
    assert.equal(r.last_message_id, largest);
    assert.equal(r.messages[0].message_id, String(largest));
    assert.equal(json(await list(t, youssef)).data[0].last_message_id, largest);
    assert.equal(json(await list(t, youssef)).data[0].unread_count, 21);
    assert.equal(json(await list(t, amina)).data[0].unread_count, 20);
    const texts = new Set((r.messages as Json[]).map((m) => m.message));
    for (let i = 0; i < 40; i++) assert.ok(texts.has(`Concurrent ${i}`));
  });

  it('stores one message for 30 concurrent identical sends with one temp_id', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const replies = await Promise.all(
      Array.from({ length: 30 }, () => post(t, youssef, { con_id: s.con_id, listing_id: BIKE, text: 'Once', temp_id: 42 })),
    );
    for (const r of replies) assert.equal(r.statusCode, 200, r.body);
    const bodies = new Set(replies.map((r) => r.body));
    assert.equal(bodies.size, 1, [...bodies].join('\n'));
    assert.equal(await messageCount(t), 2);
    assert.equal(json(await read(t, amina, s.con_id)).unread_count, 1);
  });

  it('keeps the counts consistent under concurrent PUTs', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const sent: Json[] = [];
    for (let i = 0; i < 10; i++) sent.push(await send(t, youssef, s.con_id, `Unread ${i}`));
    const last = sent.at(-1)!;
    // 20 identical PUTs of the latest: exactly one changes anything.
    const same = await Promise.all(Array.from({ length: 20 }, () => markRead(t, amina, s.con_id, last.message_id)));
    assert.deepEqual(
      same.map((r) => r.statusCode),
      Array(20).fill(200),
    );
    assert.equal(same.filter((r) => r.body === '1').length, 1);
    assert.equal(same.filter((r) => r.body === '0').length, 19);
    assert.equal(json(await read(t, amina, s.con_id)).unread_count, 0);
    // A PUT per message at once (as the React Native app does): every reply 0 or 1, all read at the end.
    for (let i = 0; i < 10; i++) sent.push(await send(t, youssef, s.con_id, `More ${i}`));
    const each = await Promise.all(sent.slice(10).map((m) => markRead(t, amina, s.con_id, m.message_id)));
    assert.ok(each.every((r) => r.statusCode === 200 && (r.body === '1' || r.body === '0')));
    assert.ok(each.some((r) => r.body === '1'));
    assert.equal(json(await read(t, amina, s.con_id)).unread_count, 0);
    assert.ok(
      (json(await read(t, amina, s.con_id, '&per_page=100')).messages as Json[])
        .filter((m) => m.source_id === '2')
        .every((m) => m.is_read === '1'),
    );
    assert.equal(json(await list(t, amina)).data[0].unread_count, 0);
  });

  it('answers every PUT when both participants mark read at once (each writes to both logs)', async () => {
    const t = await startTestSouk();
    const s = await start(t);
    const fromYoussef: Json[] = [];
    const fromAmina: Json[] = [];
    for (let i = 0; i < 15; i++) {
      fromYoussef.push(await send(t, youssef, s.con_id, `To Amina ${i}`));
      fromAmina.push(await send(t, amina, s.con_id, `To Youssef ${i}`));
    }
    const puts = fromYoussef.flatMap((m, i) => [
      markRead(t, amina, s.con_id, m.message_id),
      markRead(t, youssef, s.con_id, fromAmina[i]!.message_id),
    ]);
    const replies = await Promise.all(puts);
    assert.deepEqual(
      replies.map((r) => `${r.statusCode} ${r.statusCode === 200 ? '' : r.body}`),
      Array(30).fill('200 '),
    );
    assert.equal(json(await read(t, amina, s.con_id)).unread_count, 0);
    assert.equal(json(await read(t, youssef, s.con_id)).unread_count, 0);
  });
});
