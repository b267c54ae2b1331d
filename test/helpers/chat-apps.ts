/**
 * The public apps' chat flows in their own wire forms (docs/routes.md: "Two generations of reply", N2, N4),
 * run on a real socket (fetch), checking what each app reads from each reply. test/http/chat-apps.test.ts runs
 * them; test/ops/openapi-requests.test.ts replays them to check every request they send against the OpenAPI
 * document. Each AppClient may write what it sent, and the reply's status, to a log.
 */
import assert from 'node:assert/strict';
import { marketplace, LISTINGS, USERS } from './fixtures.js';
import type { TestSouk } from './souk.js';

type Json = any;

const BIKE = LISTINGS.bike;

// WordPress 6.8 hashes of 'alice-pass-123' and 'bob-pass-123' (original/wordpress-seeded.sql, as in account.test.ts).
const BUYER_PASSWORD = 'alice-pass-123';
const SELLER_PASSWORD = 'bob-pass-123';

/** The fixture marketplace with the recorded passwords of the buyer and the seller. */
export function appCatalog() {
  const doc = marketplace();
  const [amina, youssef] = doc.users!;
  amina!.password_hash = '$wp$2y$10$lri.9y2Sj3KJYPnRzfLDgepshT1ANxpqPBrX3eQ7wAuJ2Al17H/Yi';
  youssef!.password_hash = '$wp$2y$10$A1UDBlhTA8D3cpAdmjiMaeBQp2qGUEXqn3iF8YEGUn/41CdyarShW';
  return doc;
}

interface Reply {
  status: number;
  text: string;
  body: Json;
}

/** A request as an app sent it: the path under the base address with its query, the headers, the body, and the reply's status. */
export interface SentRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  status: number;
}

/**
 * An app's HTTP client: its base address, its API key, the headers it always sends, and its token once signed in;
 * every request it sends goes to `log`, when given.
 */
class AppClient {
  token = '';
  constructor(
    private readonly base: string,
    private readonly apiKey: string,
    private readonly always: Record<string, string>,
    private readonly log?: SentRequest[],
  ) {}

  private async send(method: string, path: string, body?: { json?: unknown; form?: Record<string, string>; raw?: string }): Promise<Reply> {
    const headers: Record<string, string> = { 'X-API-KEY': this.apiKey, ...this.always };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    let payload: string | undefined;
    if (body?.form) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded; charset=utf-8';
      payload = new URLSearchParams(body.form).toString();
    } else if (body?.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body.json);
    } else if (body?.raw !== undefined) {
      headers['Content-Type'] = 'application/json; charset=utf-8';
      payload = body.raw;
    }
    const res = await fetch(`${this.base}/wp-json/rtcl/v1/${path}`, { method, headers, body: payload });
    const text = await res.text();
    const sent = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
    this.log?.push({ method, path: new URL(res.url).pathname + new URL(res.url).search, headers: sent, body: payload, status: res.status });
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `${method} ${path}`);
    return { status: res.status, text, body: JSON.parse(text) };
  }

  get = (path: string) => this.send('GET', path);
  postJson = (path: string, json: unknown) => this.send('POST', path, { json });
  postForm = (path: string, form: Record<string, string>) => this.send('POST', path, { form });
  putJson = (path: string, json: unknown) => this.send('PUT', path, { json });
  /** The Flutter app's PUT: the ids in the query, an empty JSON body. */
  putEmptyJson = (path: string) => this.send('PUT', path, { raw: '' });
  delete = (path: string) => this.send('DELETE', path);
}

function ok(reply: Reply, what: string): Json {
  assert.equal(reply.status, 200, `${what}: ${reply.text}`);
  return reply.body;
}

/** The React Native template's headers (axios with its defaults) and the Flutter app's. */
const RN_HEADERS = { Accept: 'application/json, text/plain, */*', 'X-LOCALE': 'en_US', 'Cache-Control': 'no-cache' };
const FLUTTER_HEADERS = { Accept: 'application/json', 'X-LOCALE': 'fr_FR', 'X-LOCALE-CURRENCY': 'null', 'Cache-Control': 'no-cache' };

async function signInJson(app: AppClient, username: string, password: string): Promise<number> {
  const res = ok(await app.postJson('login', { username, password }), 'login');
  assert.equal(typeof res.jwt_token, 'string');
  assert.equal(typeof res.user.id, 'number');
  app.token = res.jwt_token;
  return res.user.id;
}

async function signInForm(app: AppClient, username: string, password: string): Promise<number> {
  const res = ok(await app.postForm('login', { username, password }), 'login');
  app.token = res.jwt_token;
  assert.equal(typeof res.user.id, 'number');
  return res.user.id;
}

/** What the React Native chat screen keeps of a conversation read: its messages in the order drawn, and whether to poll on. */
interface RnScreen {
  messages: Array<{ id: string; mine: boolean; text: string; read: boolean }>;
  keepPolling: boolean;
}

function rnScreen(conversation: Json, myId: number): RnScreen {
  const rows = conversation.messages as Json[];
  return {
    messages: rows.map((m) => ({ id: m.message_id, mine: m.source_id === String(myId), text: m.message, read: m.is_read === '1' })),
    keepPolling: conversation.sender_delete !== 1 && conversation.recipient_delete !== 1,
  };
}

/** The template's "mark read": one PUT per unread message from the other side, ids as the rows carry them. */
async function rnMarkRead(app: AppClient, conId: string, screen: RnScreen): Promise<number[]> {
  const answers: number[] = [];
  for (const m of screen.messages.filter((x) => !x.mine && !x.read)) {
    answers.push(ok(await app.putJson('my/chat/message', { con_id: conId, message_id: m.id }), 'PUT my/chat/message'));
  }
  return answers;
}

/**
 * The React Native flow, buyer and seller, in either reply generation; returns what the apps read
 * where the generations part, for the caller to judge.
 */
export async function reactNativeFlow(t: TestSouk, format: 'classic' | 'current', log?: SentRequest[]) {
  const base = await t.listen();
  const buyer = new AppClient(base, t.apiKey, RN_HEADERS, log);
  const seller = new AppClient(base, t.apiKey, RN_HEADERS, log);
  const buyerId = await signInJson(buyer, 'amina', BUYER_PASSWORD);
  const sellerId = await signInJson(seller, 'youssef@example.com', SELLER_PASSWORD);
  assert.deepEqual([buyerId, sellerId], [USERS.amina, USERS.youssef]);

  // The listing screen: the heart (a JSON toggle), then the chat button's check.
  const favourites = ok(await buyer.postJson('my/favourites', { listing_id: BIKE }), 'toggle');
  assert.equal(favourites.includes(BIKE), true, 'res.data.includes(listing_id) with a number');
  assert.equal(favourites.includes(String(BIKE)), false, 'the ids are numbers, not strings');
  const firstCheck = await buyer.get(`my/chat/check?listing_id=${BIKE}`);
  assert.equal(ok(firstCheck, 'check'), false);
  assert.equal(firstCheck.text, 'false');

  // The first message: POST my/chat/conversation; the app keeps con_id.
  const started = ok(await buyer.postJson('my/chat/conversation', { listing_id: BIKE, text: 'Hello, is the bike available?' }), 'start');
  assert.equal(typeof started.con_id, 'number');
  const conId = started.con_id as number;

  // The seller's chat list.
  const sellerList = await seller.get('my/chat');
  const result: Json = { sellerListIsArray: Array.isArray(sellerList.body), pollStopsOnLeave: false };
  const rows: Json[] = format === 'classic' ? sellerList.body : sellerList.body.data;
  const row = rows[0];
  if (format === 'classic') {
    assert.ok(Array.isArray(sellerList.body), 'the template maps over the reply itself');
    assert.equal(row.con_id, String(conId), 'con_id a string, echoed as it is');
    assert.equal(row.listing_id, String(BIKE));
    assert.equal(row.sender_delete, '0');
  }
  assert.equal(row.unread_count, 1, 'an int: the badge');
  assert.equal(row.source_id, String(buyerId), 'a string: compared with String(myId)');
  assert.notEqual(row.source_id, String(sellerId));
  assert.equal(row.other_id, String(buyerId));
  assert.equal(row.display_name, 'Amina K.');
  assert.equal(row.listing.id, BIKE);
  assert.equal(row.last_message, 'Hello, is the bike available?');
  const rowConId = String(row.con_id);
  const rowListingId = String(row.listing_id);

  // The seller opens it (string ids echoed), marks each unread message read, and answers.
  let screen = rnScreen(ok(await seller.get(`my/chat/conversation?con_id=${rowConId}`), 'read'), sellerId);
  assert.deepEqual(
    screen.messages.map((m) => [m.text, m.mine, m.read]),
    [['Hello, is the bike available?', false, false]],
  );
  assert.deepEqual(await rnMarkRead(seller, rowConId, screen), [1]);
  const reply = ok(
    await seller.postJson('my/chat/message', {
      con_id: rowConId,
      listing_id: rowListingId,
      text: 'Yes! Come tomorrow.',
      temp_id: 1700000000001,
    }),
    'answer',
  );
  assert.equal(reply.con_id, conId);
  assert.equal(reply.source_id, sellerId);
  assert.equal(reply.temp_id, '1700000000001', 'the temp_id echoed as a string, to swap the pending bubble');

  // The buyer's screen polls the conversation, draws it in order, and marks the answer read.
  const buyerList = await buyer.get('my/chat');
  const buyerRow = (format === 'classic' ? buyerList.body : buyerList.body.data)[0];
  assert.equal(buyerRow.unread_count, 1);
  assert.equal(buyerRow.source_id, String(sellerId));
  screen = rnScreen(ok(await buyer.get(`my/chat/conversation?con_id=${String(buyerRow.con_id)}`), 'poll'), buyerId);
  const drawn = format === 'classic' ? screen.messages : [...screen.messages].reverse();
  assert.deepEqual(
    drawn.map((m) => [m.text, m.mine, m.read]),
    [
      ['Hello, is the bike available?', true, true],
      ['Yes! Come tomorrow.', false, false],
    ],
  );
  result.messagesInSentOrder = screen.messages[0]!.text === 'Hello, is the bike available?';
  assert.deepEqual(await rnMarkRead(buyer, String(buyerRow.con_id), screen), [1]);
  assert.equal((await buyer.get('my/chat')).text.includes('"unread_count":0'), true);
  assert.equal(ok(await buyer.putJson('my/chat/message', { con_id: String(conId), message_id: String(reply.message_id) }), 'again'), 0);

  // The buyer leaves; the seller's poll must stop on sender_delete === 1.
  assert.equal(ok(await buyer.delete(`my/chat/conversation?con_id=${conId}`), 'delete'), 1);
  const afterLeave = ok(await seller.get(`my/chat/conversation?con_id=${rowConId}`), 'seller poll');
  result.pollStopsOnLeave = !rnScreen(afterLeave, sellerId).keepPolling;
  result.senderDelete = afterLeave.sender_delete;
  // The seller cannot answer into it any more, and says so.
  const refused = await seller.postJson('my/chat/message', { con_id: rowConId, listing_id: rowListingId, text: 'Still there?' });
  assert.equal(refused.status, 403);
  assert.deepEqual(refused.body, { code: 'FORBIDDEN', message: 'The other participant has left this conversation.' });
  // The buyer's list is empty, and the check says false again.
  const emptied = (await buyer.get('my/chat')).body;
  assert.deepEqual(format === 'classic' ? emptied : emptied.data, []);
  assert.equal((await buyer.get(`my/chat/check?listing_id=${BIKE}`)).text, 'false');
  return result;
}

/**
 * The Flutter app, classic replies: toggles with a form, checks, sends its first message twice, marks read with
 * PUT ?con_id&message_id and an empty JSON body.
 */
export async function flutterFlow(t: TestSouk, log?: SentRequest[]): Promise<void> {
  const base = await t.listen();
  const buyer = new AppClient(base, t.apiKey, FLUTTER_HEADERS, log);
  const seller = new AppClient(base, t.apiKey, FLUTTER_HEADERS, log);
  const buyerId = await signInForm(buyer, ' Amina ', BUYER_PASSWORD);
  const sellerId = await signInForm(seller, 'youssef', SELLER_PASSWORD);

  // The heart: a form body; the reply is a list of ints.
  const favourites = ok(await buyer.postForm('my/favourites', { listing_id: String(BIKE) }), 'toggle');
  assert.deepEqual(favourites, [BIKE]);
  assert.ok(favourites.every((id: unknown) => Number.isInteger(id)));

  // The chat button: any reply containing `false` means "no conversation".
  const none = await buyer.get(`my/chat/check?listing_id=${BIKE}`);
  assert.equal(none.status, 200);
  assert.ok(none.text.includes('false'));

  // The first message, sent twice (the app's double send), as a form with its local temp_id.
  const form = { listing_id: String(BIKE), text: 'Bonjour, toujours disponible ?', temp_id: '1700000000' };
  const first = ok(await buyer.postForm('my/chat/conversation', form), 'start');
  const second = ok(await buyer.postForm('my/chat/conversation', form), 'start again');
  assert.equal(typeof first.con_id, 'number', 'the app reads con_id, an int');
  assert.equal(second.con_id, first.con_id, 'one conversation');
  assert.equal(second.newMessage.message_id, first.newMessage.message_id, 'one message: the retry returns it');
  const conId: number = first.con_id;

  // The check now answers the classic conversation object: ints everywhere, no `false` anywhere.
  const open = await buyer.get(`my/chat/check?listing_id=${BIKE}`);
  assert.equal(open.status, 200);
  assert.equal(open.text.includes('false'), false, 'the app would take any false for "no conversation"');
  const ints = [
    'con_id',
    'listing_id',
    'sender_id',
    'recipient_id',
    'sender_delete',
    'recipient_delete',
    'last_message_id',
    'sender_review',
    'recipient_review',
    'invert_review',
  ];
  assert.deepEqual(Object.keys(open.body), [...ints, 'messages']);
  for (const key of ints) assert.ok(Number.isInteger(open.body[key]), `${key} is an int`);
  assert.deepEqual(
    [
      open.body.con_id,
      open.body.listing_id,
      open.body.sender_id,
      open.body.recipient_id,
      open.body.sender_delete,
      open.body.last_message_id,
    ],
    [conId, BIKE, buyerId, sellerId, 0, first.newMessage.message_id],
  );
  assert.equal(open.body.messages.length, 1);

  // The seller: the owner's check is refused (the app never opens a chat from there) ...
  const ownerCheck = await seller.get(`my/chat/check?listing_id=${BIKE}`);
  assert.equal(ownerCheck.status, 403);
  // ... so the chat list: int.parse of the row's string con_id.
  const rows = ok(await seller.get('my/chat'), 'list') as Json[];
  assert.equal(rows.length, 1);
  const rowConId = Number.parseInt(rows[0].con_id, 10);
  assert.equal(rowConId, conId);
  assert.equal(rows[0].unread_count, 1);

  // The seller reads it (ints), marks it read with the ids in the query and an empty JSON body, answers with a form.
  const read = ok(await seller.get(`my/chat/conversation?con_id=${rowConId}`), 'read');
  for (const key of ints) assert.ok(Number.isInteger(read[key]), `${key} is an int`);
  const [only] = read.messages as Json[];
  assert.equal(only.source_id, String(buyerId));
  assert.equal(only.is_read, '0');
  const put = await seller.putEmptyJson(`my/chat/message?con_id=${rowConId}&message_id=${only.message_id}`);
  assert.equal(put.status, 200, put.text);
  assert.equal(put.text, '1');
  assert.equal((await seller.putEmptyJson(`my/chat/message?con_id=${rowConId}&message_id=${only.message_id}`)).text, '0');
  const answer = ok(
    await seller.postForm('my/chat/message', {
      con_id: String(rowConId),
      listing_id: String(BIKE),
      text: 'Oui, passez demain.',
      temp_id: '',
    }),
    'answer',
  );
  assert.equal(answer.con_id, conId);
  assert.equal(answer.temp_id, '');

  // The buyer polls: the latest messages in the order sent, ints on the object, strings on the rows.
  const poll = ok(await buyer.get(`my/chat/conversation?con_id=${conId}`), 'poll');
  assert.deepEqual(
    (poll.messages as Json[]).map((m) => [m.message_id, m.source_id, m.is_read]),
    [
      [String(first.newMessage.message_id), String(buyerId), '1'],
      [String(answer.message_id), String(sellerId), '0'],
    ],
  );
  assert.equal(poll.last_message_id, answer.message_id);
  const mark = await buyer.putEmptyJson(`my/chat/message?con_id=${conId}&message_id=${answer.message_id}`);
  assert.equal(mark.text, '1');
  const list = ok(await buyer.get('my/chat'), 'buyer list') as Json[];
  assert.equal(list[0].unread_count, 0);
  assert.equal(list[0].is_read, '1');
  assert.equal(list[0].last_message, 'Oui, passez demain.');
}

/** The Flutter app sends its first message twice without a temp_id: one conversation, both messages in it. */
export async function flutterDoubleSend(t: TestSouk, log?: SentRequest[]): Promise<void> {
  const base = await t.listen();
  const buyer = new AppClient(base, t.apiKey, FLUTTER_HEADERS, log);
  await signInForm(buyer, 'amina', BUYER_PASSWORD);
  const form = { listing_id: String(BIKE), text: 'Hello' };
  const first = ok(await buyer.postForm('my/chat/conversation', form), 'start');
  const second = ok(await buyer.postForm('my/chat/conversation', form), 'start again');
  assert.equal(second.con_id, first.con_id);
  const read = ok(await buyer.get(`my/chat/conversation?con_id=${first.con_id}`), 'read');
  assert.equal(read.messages.length, 2);
  assert.ok(!(await buyer.get(`my/chat/check?listing_id=${BIKE}`)).text.includes('false'));
}
