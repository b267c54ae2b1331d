/**
 * Hostile input, property-based (fast-check), over a real socket: thousands of generated requests
 * per operation (arbitrary JSON and form bodies, wrong and missing content types, deep nesting,
 * huge strings and numbers, unicode and control characters, duplicate keys, arbitrary header
 * values, methods and paths). Every reply is a 2xx or one of the documented 4xx shapes with its
 * status; never a 5xx, a hang or a crash. A model follows every 2xx: where the request fully
 * decides the answer (the toggle's JSON bodies) the reply must be the model's, and at the end the
 * database holds exactly what the 2xx replies reported.
 *
 * HOSTILE_SCALE (default 1) multiplies the number of runs; FC_SEED picks the seed (test/helpers/property.ts).
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { authError } from '../../src/http/errors.js';
import type { AuthFailure } from '../../src/auth/failures.js';
import { startTestSouk, PATHS } from '../helpers/souk.js';
import { USERS } from '../helpers/fixtures.js';
import { httpRequest, rawRequest, type RawResponse } from '../helpers/raw-http.js';
import { propertySeed } from '../helpers/property.js';

const SCALE = Number(process.env.HOSTILE_SCALE ?? 1);
const SEED = propertySeed();
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));

// Listings of the fixture: id -> owner; 105 is in the trash.
const LIVE_LISTINGS = new Map([
  [101, USERS.youssef],
  [102, USERS.youssef],
  [103, USERS.sara],
  [104, USERS.amina],
]);
const CALLERS = [USERS.amina, USERS.youssef, USERS.sara] as const;
const BODY_LIMIT = 256 * 1024;
const JSON_MAX_DEPTH = 16;

// Short client timeouts: a request whose body never ends (odd framing) is cut within seconds.
// Thousands of requests with bad or missing credentials come from 127.0.0.1: the failed-authentication
// throttle would answer them 429 after the first 100, hiding the answers under test.
const t = await startTestSouk({
  RATE_LIMIT_PER_USER: '0',
  RATE_LIMIT_AUTH_FAILURES: '0',
  HEADERS_TIMEOUT_MS: '5000',
  REQUEST_TIMEOUT_MS: '5000',
});
const port = Number(new URL(await t.listen()).port);
after(() => console.log(`# hostile input: seed ${SEED} (FC_SEED=${SEED} replays it)`));

// ---------------------------------------------------------------- documented answers

const AUTH_FAILURES: AuthFailure[] = [
  'rest_api_disabled',
  'api_key_missing',
  'api_key_invalid',
  'authorization_missing',
  'authorization_not_bearer',
  'token_malformed',
  'token_bad_signature',
  'token_expired',
  'token_not_yet_valid',
  'token_without_expiry',
  'not_logged_in',
];
const KNOWN_ERRORS = new Map<number, string[]>();
for (const failure of AUTH_FAILURES) {
  const e = authError(failure);
  KNOWN_ERRORS.set(e.statusCode, [...(KNOWN_ERRORS.get(e.statusCode) ?? []), JSON.stringify(e.body)]);
}
KNOWN_ERRORS.set(403, [
  ...KNOWN_ERRORS.get(403)!,
  JSON.stringify({ code: 'FORBIDDEN', message: 'You are not permitted to access this conversation.' }),
]);
KNOWN_ERRORS.set(404, [JSON.stringify({ code: 'rest_no_route', message: 'No route was found matching the URL and request method.' })]);
KNOWN_ERRORS.set(413, [
  JSON.stringify({
    status: 'error',
    error: 'PAYLOAD_TOO_LARGE',
    code: '413',
    error_message: `The request body is larger than the limit of ${BODY_LIMIT} bytes.`,
  }),
]);
KNOWN_ERRORS.set(408, [
  JSON.stringify({
    status: 'error',
    error: 'REQUEST_TIMEOUT',
    code: '408',
    error_message: 'The request was not received in time (headers within 5000 ms, the whole request within 5000 ms).',
  }),
]);
KNOWN_ERRORS.set(431, [
  JSON.stringify({
    status: 'error',
    error: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
    code: '431',
    error_message: 'The request headers are larger than the limit of 16384 bytes.',
  }),
]);

const CONVERSATION_KEYS = [
  'con_id',
  'listing',
  'unread_count',
  'sender',
  'recipient',
  'listing_id',
  'sender_id',
  'recipient_id',
  'sender_delete',
  'recipient_delete',
  'last_message_id',
  'sender_review',
  'recipient_review',
  'invert_review',
  'created_at',
  'updated_at',
  'last_message',
  'last_message_created_at',
  'newMessage',
];

interface Conversation {
  con_id: number;
  listing_id: number;
  sender_id: number;
  recipient_id: number;
  newMessage: { message_id: number; message: string; temp_id: string; con_id: number };
}

type Op = 'toggle' | 'start';
const pathOf = (op: Op) => (op === 'toggle' ? PATHS.toggle : PATHS.start);

/** Asserts the reply is a 2xx of the operation or one documented error; returns its parsed body. */
/** What a request asks for: an operation, a read (list, conversation), leaving a conversation, or nothing (no route). */
type Effective = Op | 'list' | 'read' | 'leave' | 'other';

function assertDocumented(op: Effective, res: RawResponse, context: string): unknown {
  const where = `${context}\n-> ${res.status} ${res.body.slice(0, 500)}`;
  assert.ok(res.status < 500, `server error: ${where}`);
  if (res.status === 404) {
    assert.equal(op, 'other', `404 for an operation's own path: ${where}`);
    if (res.body !== '') assert.ok(KNOWN_ERRORS.get(404)!.includes(res.body), where);
    return undefined;
  }
  // No route: 404, unless the request is refused first for its size or form.
  if (op === 'other') assert.ok([400, 408, 413, 431].includes(res.status), `expected 404: ${where}`);
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    assert.fail(`not JSON: ${where}`);
  }
  assert.match(res.headers['content-type'] ?? '', /^application\/json/, where);
  if (res.status === 200) {
    if (op === 'list') {
      // GET my/favourites: reads only, so nothing for the model to follow.
      assert.deepEqual(Object.keys(body as object), ['data', 'pagination'], where);
    } else if (op === 'read') {
      // GET my/chat/conversation of a conversation the caller takes part in: reads only.
      assert.equal(typeof (body as { con_id?: unknown }).con_id, 'number', where);
    } else if (op === 'leave') {
      assert.equal(body, 1, where);
    } else if (op === 'toggle') {
      assert.ok(Array.isArray(body) && body.every((id) => Number.isSafeInteger(id) && id > 0), where);
      assert.equal(new Set(body as number[]).size, (body as number[]).length, `an id listed twice: ${where}`);
    } else {
      assert.deepEqual(Object.keys(body as object), CONVERSATION_KEYS, where);
    }
    return body;
  }
  if (res.status === 400) {
    const b = body as Record<string, unknown>;
    assert.deepEqual(Object.keys(b), ['status', 'error', 'code', 'error_message'], where);
    assert.equal(b.status, 'error', where);
    assert.equal(b.error, 'BADREQUEST', where);
    assert.equal(b.code, '400', where);
    assert.ok(typeof b.error_message === 'string' && b.error_message.length > 0, where);
    return body;
  }
  assert.ok(KNOWN_ERRORS.get(res.status)?.includes(res.body), `undocumented answer: ${where}`);
  return body;
}

// ---------------------------------------------------------------- the model of what 2xx replies reported

const favourites = new Map<number, number[]>();
const messages = new Map<number, { text: string; conId: number }>();
const conversations = new Map<number, { listing: number; sender: number }>();
const retries = new Map<string, number>(); // sender:con_id:temp_id -> message id
let answered = 0;
let startsAnswered = 0;

function adoptToggle(user: number, list: number[]): void {
  favourites.set(user, list);
  answered++;
}

/** Checks a 200 start reply against the request and records it. */
function adoptStart(user: number, sent: { listing: number | undefined; text: unknown }, reply: Conversation, where: string): void {
  answered++;
  startsAnswered++;
  assert.equal(reply.sender_id, user, where);
  if (sent.listing !== undefined) assert.equal(reply.listing_id, sent.listing, where);
  assert.equal(reply.recipient_id, LIVE_LISTINGS.get(reply.listing_id), where);
  assert.notEqual(reply.recipient_id, user, where);
  const m = reply.newMessage;
  const retryKey = `${user}:${reply.con_id}:${m.temp_id}`;
  const earlier = m.temp_id === '' ? undefined : retries.get(retryKey);
  if (earlier !== undefined) {
    assert.equal(m.message_id, earlier, `a retry with the same temp_id returns the first message: ${where}`);
  } else {
    if (sent.text !== UNKNOWN_TEXT) assert.equal(m.message, sent.text, `the text is stored verbatim: ${where}`);
    assert.ok(!messages.has(m.message_id), where);
    messages.set(m.message_id, { text: m.message, conId: reply.con_id });
    if (m.temp_id !== '') retries.set(retryKey, m.message_id);
  }
  const known = conversations.get(reply.con_id);
  if (known) assert.deepEqual(known, { listing: reply.listing_id, sender: user }, where);
  conversations.set(reply.con_id, { listing: reply.listing_id, sender: user });
}

// ---------------------------------------------------------------- what the server should make of a JSON body

/** The text of a request the test cannot decode as the server does. */
const UNKNOWN_TEXT = Symbol('text not known');

const LISTING_ID_MESSAGE = 'listing_id is required and must be a positive integer.';

/** D3: the listing id the server reads, or undefined when listing_id is invalid. */
function listingIdOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 1 && value <= Number.MAX_SAFE_INTEGER ? value : undefined;
  if (typeof value === 'string' && /^[0-9]{1,32}$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) && n >= 1 ? n : undefined;
  }
  return undefined;
}

/** How deeply a parsed JSON value nests (an object or array is one level), without recursion. */
function depthOf(root: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[root, 0]];
  while (stack.length > 0) {
    const [node, above] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, above + 1);
    for (const child of Object.values(node)) stack.push([child, above + 1]);
  }
  return deepest;
}

function parseJsonBody(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text.replace(/^\uFEFF/, '')) };
  } catch {
    return { ok: false };
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

type Expectation = { status: 200; list: number[] } | { status: 400; message?: string } | { status: 413 } | undefined;

/** The exact answer to a toggle with a JSON body, when the body alone decides it. */
function expectToggle(user: number, text: string): Expectation {
  if (Buffer.byteLength(text) > BODY_LIMIT) return { status: 413 };
  if (/__proto__|constructor/.test(text)) return undefined; // refused or accepted: both documented
  const parsed = parseJsonBody(text);
  if (!parsed.ok) return { status: 400 };
  if (depthOf(parsed.value) > JSON_MAX_DEPTH) return { status: 400, message: 'The request body is nested too deeply.' };
  if (!isPlainObject(parsed.value)) return { status: 400 };
  if (!Object.hasOwn(parsed.value, 'listing_id')) return { status: 400, message: LISTING_ID_MESSAGE };
  const id = listingIdOf(parsed.value.listing_id);
  if (id === undefined) return { status: 400, message: LISTING_ID_MESSAGE };
  if (!LIVE_LISTINGS.has(id)) return { status: 400, message: 'Listing not found.' };
  const now = favourites.get(user) ?? [];
  return { status: 200, list: now.includes(id) ? now.filter((l) => l !== id) : [...now, id] };
}

// ---------------------------------------------------------------- generators

const nasty = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\t\r\n',
  '\u202e\u202d',
  '\ufeff',
  '\u200b',
  '\ud800',
  '\udc00x',
  '🙂',
  'é',
  'e\u0301',
  '<script>alert(1)</script>',
  "'; drop table messages; --",
  '%00',
  '../../etc/passwd',
  '${jndi:ldap://x}',
  '{{7*7}}',
  '\\u0000',
);
const anyText = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 80 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 80 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 80 }) },
  { weight: 2, arbitrary: nasty },
  { weight: 1, arbitrary: fc.array(nasty, { maxLength: 8 }).map((parts) => parts.join('x')) },
);
const listingIdValue = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(101, 102, 103, 104) },
  { weight: 3, arbitrary: fc.constantFrom('101', '0102', '103', '104', 105, 999, '999', 1.0) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      0,
      -1,
      1.5,
      2 ** 53,
      2 ** 53 - 1,
      1e308,
      -1e308,
      '',
      ' 101',
      '101 ',
      '+101',
      '1e2',
      '0x65',
      '١٠١',
      '１０１',
      '9'.repeat(33),
      '9007199254740993',
      '00000000000000000000000000000101',
      true,
      false,
      null,
      [101],
      { id: 101 },
      '101\u0000',
    ),
  },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: anyText },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
const attachment = fc.record(
  {
    url: fc.oneof(fc.webUrl(), fc.constantFrom('javascript:alert(1)', 'ftp://x/y', 'http://', 'HTTPS://CDN.EXAMPLE/A.JPG', 'http://a b')),
    name: anyText,
    mime_type: fc.constantFrom('image/jpeg', 'application/pdf', '', 'x'.repeat(300)),
    size: fc.oneof(fc.nat(), fc.constant(-1), fc.constant(1.5)),
  },
  { requiredKeys: ['url'] },
);
const filesValue = fc.oneof(
  { weight: 3, arbitrary: fc.array(attachment, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.array(attachment, { minLength: 9, maxLength: 12 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);
const tempIdValue = fc.oneof(
  fc.integer({ min: 1, max: 2 ** 40 }),
  fc.constantFrom<unknown>(0, -7, '', '42', '-42', '4.2', 'abc', null, 1.5, 2 ** 60, true, [], {}),
  fc.stringMatching(/^-?[0-9]{1,34}$/),
);
const extraFields = fc.dictionary(
  fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('con_id', 'user_id', 'sender_id', 'is_read')),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 4 },
);

/** A body object with the operation's fields, each often valid, sometimes not, sometimes missing. */
const structuredBody = fc
  .record(
    {
      listing_id: listingIdValue,
      text: fc.oneof({ weight: 5, arbitrary: anyText }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
      files: filesValue,
      temp_id: tempIdValue,
      extra: extraFields,
    },
    { requiredKeys: [] },
  )
  .map(({ extra, ...fields }) => ({ ...extra, ...fields }));

/** A body both operations should take (unless the text is blank or not plain, or the listing is the caller's). */
const wellFormedBody = fc.record(
  {
    listing_id: fc.constantFrom(101, 102, 103, 104, '101', '103'),
    text: anyText,
    temp_id: fc.integer({ min: 1, max: 2 ** 40 }),
    files: fc.array(
      attachment
        .filter((a) => /^https?:\/\/\S+$/i.test(a.url))
        .map(({ url, name }) => ({ url, name: typeof name === 'string' ? name : 'f' })),
      { maxLength: 2 },
    ),
    con_id: fc.constant(0),
  },
  { requiredKeys: ['listing_id', 'text'] },
);

/** JSON texts: structured bodies, any JSON, duplicate keys, broken JSON, deep nesting, huge values. */
const jsonText = fc.oneof(
  { weight: 6, arbitrary: wellFormedBody.map((b) => JSON.stringify(b)) },
  { weight: 10, arbitrary: structuredBody.map((b) => JSON.stringify(b)) },
  { weight: 2, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  {
    weight: 2,
    arbitrary: fc.tuple(structuredBody, listingIdValue).map(([b, dup]) => {
      // A duplicate listing_id key before the real one: the last one wins, as in JSON.parse.
      const text = JSON.stringify(b);
      return text === '{}' ? `{"listing_id":${JSON.stringify(dup)}}` : `{"listing_id":${JSON.stringify(dup) ?? 'null'},${text.slice(1)}`;
    }),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 60 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '{',
      '}',
      '[]',
      'null',
      '"x"',
      '{"listing_id":101',
      '{"listing_id":101,}',
      "{'listing_id':101}",
      '{"listing_id":1e999}',
      '{"listing_id":-0}',
      '{"listing_id":101}{"listing_id":102}',
      '\ufeff{"listing_id":101}',
      '{"__proto__":{"listing_id":101}}',
      '{"constructor":{"prototype":{"x":1}},"listing_id":101}',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: 1, max: 120_000 }), fc.constantFrom('[', '{"a":'), fc.boolean()).map(([depth, open, listing]) => {
      const close = open === '[' ? ']' : '}';
      const nested = `${open.repeat(depth)}1${close.repeat(depth)}`;
      return listing ? `{"listing_id":101,"text":"deep","deep":${nested}}` : nested;
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1000, max: 300_000 }), fc.constantFrom('text', 'listing_id', 'extra', 'temp_id'))
      .map(([n, field]) => {
        const huge = field === 'listing_id' || field === 'temp_id' ? '9'.repeat(n) : `"${'é'.repeat(n / 2)}"`;
        return field === 'extra' ? `{"listing_id":101,"text":"big","extra":${huge}}` : `{"listing_id":101,"text":"big","${field}":${huge}}`;
      }),
  },
);

/** encodeURIComponent, with lone surrogates sent as the (invalid) UTF-8 bytes a careless client would send. */
/**
 * A generated value as a form field's text, as String() gives it; an object String() cannot
 * convert (fc.jsonValue makes some without a prototype) as its JSON text.
 */
function formValue(value: unknown): string {
  try {
    return String(value);
  } catch {
    return JSON.stringify(value);
  }
}

function formEncode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return Array.from(value, (c) => (/[\ud800-\udfff]/.test(c) ? '%ED%A0%80' : encodeURIComponent(c))).join('');
  }
}

const formText = fc.oneof(
  fc
    .array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom('listing_id', 'text', 'temp_id', 'files', 'files[0][url]', 'con_id', 'listing_id[]'),
          fc.string({ maxLength: 10 }),
        ),
        anyText,
      ),
      { maxLength: 6 },
    )
    .map((pairs) => pairs.map(([k, v]) => `${formEncode(k)}=${formEncode(v)}`).join('&')),
  fc.tuple(listingIdValue, anyText).map(([id, text]) => `listing_id=${formEncode(formValue(id))}&text=${formEncode(text)}`),
  fc.string({ maxLength: 60 }),
  fc.constantFrom(
    'listing_id=101&listing_id=102',
    'listing_id=%',
    'listing_id=%zz',
    'listing_id=101&text=%E0%A4%A',
    '=&&=',
    'listing_id=101;text=x',
    '%00=%00',
  ),
);

const callerArb = fc.constantFrom(...CALLERS);
const opArb = fc.constantFrom<Op>('toggle', 'start');

function authHeaders(user: number): [string, string][] {
  return [
    ['X-API-KEY', t.apiKey],
    ['Authorization', `Bearer ${t.token(user)}`],
  ];
}

async function send(
  op: Op | 'other',
  method: string,
  path: string,
  headers: [string, string | Buffer][],
  body: string | Buffer,
): Promise<RawResponse> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const head: [string, string | Buffer][] = [...headers];
  if (!head.some(([k]) => k.toLowerCase() === 'content-length' || k.toLowerCase() === 'transfer-encoding'))
    head.push(['Content-Length', String(bytes.length)]);
  const res = await rawRequest(port, httpRequest(method, path, head, bytes), { timeoutMs: 20_000, untilComplete: true });
  const context = `${method} ${path} ${JSON.stringify(head.map(([k, v]) => [k, String(v).slice(0, 200)]))} ${bytes.subarray(0, 300).toString('utf8')}`;
  assert.ok(res.complete || res.closedByServer, `hang: no answer within 20 s: ${context}`);
  assert.ok(res.response, `no HTTP answer (${res.error ?? 'connection closed'}): ${context}`);
  return res.response;
}

/** Records a reply that may be a 2xx of the operation. */
function follow(op: Op, user: number, res: RawResponse, body: unknown, sent: { listing: number | undefined; text: unknown }): void {
  if (res.status !== 200) return;
  if (op === 'toggle') adoptToggle(user, body as number[]);
  else adoptStart(user, sent, body as Conversation, res.body.slice(0, 300));
}

function sentFields(text: string): { listing: number | undefined; text: unknown } {
  const parsed = parseJsonBody(text);
  if (!parsed.ok || !isPlainObject(parsed.value)) return { listing: undefined, text: undefined };
  return { listing: listingIdOf(parsed.value.listing_id), text: parsed.value.text };
}

/** GET on the toggle's path is the favourites list, GET and DELETE on the start's read and leave a conversation; other verbs but POST have no route. */
function effectiveOf(op: Op | 'other', verb: string): Effective {
  if (verb === 'POST' || op === 'other') return op;
  if (verb === 'GET') return op === 'toggle' ? 'list' : 'read';
  return verb === 'DELETE' && op === 'start' ? 'leave' : 'other';
}

const options = (numRuns: number) => ({ numRuns, seed: SEED, endOnFailure: true });

/** fc.assert, with the failing assertion's message in the report and giant counterexamples cut short. */
async function check<T extends unknown[]>(property: fc.IAsyncProperty<T>, numRuns: number): Promise<void> {
  try {
    await fc.assert(property, options(numRuns));
  } catch (err) {
    const cause = (err as Error).cause;
    const why = cause instanceof Error ? cause.message : String(cause ?? '');
    throw new Error(`${(err as Error).message.slice(0, 4000)}\n--- failure: ${why.slice(0, 4000)}`, { cause: err });
  }
}

describe('hostile input', () => {
  it('JSON bodies: any JSON, broken JSON, duplicate keys, deep nesting, huge values, unicode and control characters', async () => {
    await check(
      fc.asyncProperty(
        opArb,
        callerArb,
        jsonText,
        fc.constantFrom('application/json', 'application/json; charset=utf-8', 'Application/JSON'),
        async (op, user, text, type) => {
          const expected = op === 'toggle' ? expectToggle(user, text) : undefined;
          const res = await send(op, 'POST', pathOf(op), [...authHeaders(user), ['Content-Type', type]], text);
          const where = `${op} as ${user}: ${text.slice(0, 300)}`;
          const body = assertDocumented(op, res, where);
          if (expected) {
            assert.equal(res.status, expected.status, `${where}\n-> ${res.body.slice(0, 300)}`);
            if (expected.status === 200) assert.deepEqual(body, expected.list, where);
            if (expected.status === 400 && expected.message)
              assert.equal((body as { error_message: string }).error_message, expected.message, where);
          }
          if (op === 'start' && res.status === 403) {
            assert.equal(LIVE_LISTINGS.get(sentFields(text).listing ?? 0), user, `403 only for the caller's own listing: ${where}`);
          }
          follow(op, user, res, body, sentFields(text));
        },
      ),
      runs(3000),
    );
  });

  it('form bodies', async () => {
    await check(
      fc.asyncProperty(opArb, callerArb, formText, async (op, user, text) => {
        const res = await send(op, 'POST', pathOf(op), [...authHeaders(user), ['Content-Type', 'application/x-www-form-urlencoded']], text);
        const body = assertDocumented(op, res, `${op} form: ${text}`);
        follow(op, user, res, body, formFields(text));
      }),
      runs(1000),
    );
  });

  it('wrong, odd and missing content types; raw bytes; lying lengths', async () => {
    const contentType = fc.option(
      fc.oneof(
        fc.constantFrom(
          'text/plain',
          'application/xml',
          'multipart/form-data; boundary=x',
          'application/json; charset=latin1',
          'application/jsonx',
          'application/x-www-form-urlencoded; charset=utf-16',
          'application/*',
          '*/*',
          ';',
          '',
          'application/json, text/plain',
          'application/vnd.api+json',
        ),
        fc.string({ maxLength: 30 }).filter((s) => !/[\r\n]/.test(s)),
      ),
      { nil: undefined },
    );
    const body = fc.oneof(
      jsonText.map((s) => Buffer.from(s)),
      fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
      formText.map((s) => Buffer.from(s)),
    );
    const framing = fc.constantFrom('exact', 'exact', 'exact', 'chunked', 'shorter', 'zero');
    await check(
      fc.asyncProperty(opArb, callerArb, contentType, body, framing, async (op, user, type, bytes, how) => {
        const headers: [string, string][] = [...authHeaders(user)];
        if (type !== undefined) headers.push(['Content-Type', type]);
        let payload = bytes;
        if (how === 'chunked') {
          headers.push(['Transfer-Encoding', 'chunked']);
          payload = Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n0\r\n\r\n')]);
        } else if (how === 'shorter' && bytes.length > 1) {
          // Declares fewer bytes than it sends: the rest is a second, garbage request (answered or refused).
          headers.push(['Content-Length', String(bytes.length - 1)]);
        } else if (how === 'zero') {
          headers.push(['Content-Length', '0']);
          payload = Buffer.alloc(0);
        }
        const res = await send(op, 'POST', pathOf(op), headers, payload);
        const decoded = body2text(payload, how);
        const parsedBody = assertDocumented(op, res, `${op} type=${JSON.stringify(type)} ${how}: ${decoded.slice(0, 200)}`);
        const sent = type?.toLowerCase().includes('form') ? formFields(decoded) : sentFields(decoded);
        follow(op, user, res, parsedBody, sent);
      }),
      runs(1000),
    );
  });

  it('arbitrary header values, duplicate headers, methods and paths', async () => {
    const headerValue = fc.oneof(
      fc.string({ maxLength: 60 }).filter((s) => !/[\r\n]/.test(s)),
      fc.uint8Array({ maxLength: 60 }).map((a) => Buffer.from(a.filter((b) => b !== 13 && b !== 10))),
      fc.constantFrom('', ' ', 'Bearer', 'Bearer ', 'bearer x.y.z', 'Basic YTpi', '\u0000', 'Bearer \u00ff\u00fe'),
    );
    const headerName = fc.oneof(
      fc.constantFrom(
        'X-API-KEY',
        'x-api-key',
        'Authorization',
        'authorization',
        'Content-Type',
        'Content-Length',
        'Transfer-Encoding',
        'Expect',
        'Host',
        'Connection',
        'X-Forwarded-For',
        'Cookie',
      ),
      fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/),
    );
    const extraHeaders = fc.array(fc.tuple(headerName, headerValue), { maxLength: 5 });
    const keyChoice = fc.constantFrom('valid', 'missing', 'random', 'twice');
    const tokenChoice = fc.constantFrom('valid', 'missing', 'random', 'twice', 'disabled');
    const method = fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS');
    const pathArb = fc.oneof(
      { weight: 6, arbitrary: opArb.map((op) => ({ op: op as Op | 'other', path: pathOf(op) })) },
      { weight: 1, arbitrary: opArb.map((op) => ({ op: op as Op | 'other', path: `${pathOf(op)}/` })) },
      { weight: 1, arbitrary: opArb.map((op) => ({ op: op as Op | 'other', path: `${pathOf(op)}?listing_id=101&x=%00` })) },
      { weight: 1, arbitrary: fc.webPath().map((p) => ({ op: 'other' as const, path: `/wp-json/rtcl/v1/${p.replace(/^\//, '')}x` })) },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom(
            '/wp-json/rtcl/v1/my//favourites',
            '/wp-json/rtcl/v1/MY/FAVOURITES',
            '/wp-json/rtcl/v2/my/favourites',
            '/wp-json/rtcl/v1/my/favourites%2f',
          )
          .map((path) => ({ op: 'other' as const, path })),
      },
    );
    await check(
      fc.asyncProperty(
        pathArb,
        method,
        callerArb,
        keyChoice,
        tokenChoice,
        headerValue,
        extraHeaders,
        jsonText,
        async ({ op, path }, verb, user, key, token, randomValue, extra, text) => {
          const headers: [string, string | Buffer][] = [['Content-Type', 'application/json']];
          if (key === 'valid') headers.push(['X-API-KEY', t.apiKey]);
          if (key === 'random') headers.push(['X-API-KEY', randomValue]);
          if (key === 'twice') headers.push(['X-API-KEY', t.apiKey], ['X-API-KEY', t.apiKey]);
          const bearer = `Bearer ${t.token(token === 'disabled' ? USERS.disabled : user)}`;
          if (token === 'valid' || token === 'disabled') headers.push(['Authorization', bearer]);
          if (token === 'random') headers.push(['Authorization', randomValue]);
          if (token === 'twice') headers.push(['Authorization', bearer], ['Authorization', 'Bearer x.y.z']);
          headers.push(...extra);
          const res = await send(op, verb, path, headers, text);
          const effective = effectiveOf(op, verb);
          const body = assertDocumented(
            effective,
            res,
            `${verb} ${path} key=${key} token=${token} extra=${JSON.stringify(extra.map(([k, v]) => [k, String(v)]))}: ${text.slice(0, 200)}`,
          );
          if ((effective === 'toggle' || effective === 'start') && res.status === 200) {
            assert.ok(key === 'valid' || key === 'twice', 'a 2xx needs the API key');
            follow(effective, user, res, body, sentFields(text));
          }
        },
      ),
      runs(1000),
    );
  });

  it('the database holds exactly what the 2xx replies reported, and the server still serves', async (ctx) => {
    ctx.diagnostic(
      `${answered} requests answered 2xx (${startsAnswered} starts); ${messages.size} messages, ${conversations.size} conversations, ${favourites.size} users with favourites`,
    );
    const db = t.souk.store.db;
    const rows = await db.selectFrom('favourites').select(['user_id', 'listing_id']).orderBy('id').execute();
    const stored = new Map<number, number[]>();
    for (const r of rows) stored.set(r.user_id, [...(stored.get(r.user_id) ?? []), r.listing_id]);
    for (const user of new Set([...stored.keys(), ...favourites.keys()])) {
      assert.deepEqual(stored.get(user) ?? [], favourites.get(user) ?? [], `favourites of user ${user}`);
    }
    const storedMessages = await db.selectFrom('messages').select(['id', 'message', 'con_id']).execute();
    assert.deepEqual(
      new Map(storedMessages.map((m) => [m.id, { text: m.message, conId: m.con_id }])),
      messages,
      'messages are exactly those the 2xx replies reported',
    );
    const storedConversations = await db.selectFrom('conversations').select(['id', 'listing_id', 'sender_id']).execute();
    assert.deepEqual(new Map(storedConversations.map((c) => [c.id, { listing: c.listing_id, sender: c.sender_id }])), conversations);
    const res = await send(
      'toggle',
      'POST',
      PATHS.toggle,
      [...authHeaders(USERS.sara), ['Content-Type', 'application/json']],
      '{"listing_id":101}',
    );
    assert.equal(res.status, 200);
  });
});

/** The body as the server reads it: a 'shorter' Content-Length leaves out the last byte sent. */
function body2text(payload: Buffer, how: string): string {
  if (how === 'shorter' && payload.length > 1) return payload.subarray(0, payload.length - 1).toString('utf8');
  if (how !== 'chunked') return payload.toString('utf8');
  const afterSize = payload.indexOf('\r\n') + 2;
  return payload.subarray(afterSize, payload.length - '\r\n0\r\n\r\n'.length).toString('utf8');
}

/** What a form body says, as far as URLSearchParams agrees with the server's parser (valid %-escapes). */
function formFields(text: string): { listing: number | undefined; text: unknown } {
  const fields = Object.fromEntries(new URLSearchParams(text));
  const wellEncoded = text.split(/[&=]/).every((part) => {
    try {
      decodeURIComponent(part.replace(/\+/g, ' '));
      return true;
    } catch {
      return false;
    }
  });
  return { listing: listingIdOf(fields.listing_id), text: wellEncoded ? fields.text : UNKNOWN_TEXT };
}
