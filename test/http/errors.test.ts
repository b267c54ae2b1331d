import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { startTestSouk, PATHS, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';

const NO_ROUTE = { code: 'rest_no_route', message: 'No route was found matching the URL and request method.' };

type Op = 'toggle' | 'start';
const OPS: Op[] = ['toggle', 'start'];
const VALID: Record<Op, Record<string, unknown>> = {
  toggle: { listing_id: LISTINGS.bike },
  start: { listing_id: LISTINGS.bike, text: 'hi' },
};

/** Sends a raw body as sara, with the Content-Type given (undefined: none). */
function send(t: TestSouk, op: Op, payload: string | Buffer, contentType: string | undefined): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...t.auth(USERS.sara) };
  if (contentType !== undefined) headers['content-type'] = contentType;
  return t.app.inject({ method: 'POST', url: PATHS[op], payload, headers });
}

/** 400 shape B BADREQUEST, with a message that names the problem. */
function assertBadRequest(res: LightMyRequestResponse, names: RegExp): void {
  assert.equal(res.statusCode, 400, res.body);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ['status', 'error', 'code', 'error_message']);
  assert.deepEqual({ ...body, error_message: '' }, { status: 'error', error: 'BADREQUEST', code: '400', error_message: '' });
  assert.equal(typeof body.error_message, 'string');
  assert.notEqual(body.error_message.trim(), '');
  assert.match(body.error_message, names);
}

async function assertNothingStored(t: TestSouk): Promise<void> {
  for (const table of ['favourites', 'conversations', 'messages'] as const) {
    assert.equal((await t.souk.store.db.selectFrom(table).select('id').execute()).length, 0, `${table} is untouched`);
  }
}

// The refusals of D1 and D2 change nothing, so they share a Souk, and each checks that nothing is
// stored so far. Started here, not in a test: startTestSouk closes its Souk after the test that started it.
const refusing = startTestSouk();

describe('D1: routes', () => {
  const base = '/wp-json/rtcl/v1';
  for (const [method, url] of [
    // GET my/favourites is the favourites list (favourites-list.test.ts), GET and DELETE
    // my/chat/conversation read and leave a conversation (chat.test.ts), DELETE and PATCH
    // my/chat/message take back and correct one (chat-own-messages.test.ts); these are still no route.
    ['DELETE', PATHS.toggle],
    ['PUT', PATHS.toggle],
    ['PUT', PATHS.start],
    ['PATCH', PATHS.start],
    ['GET', `${base}/my/chat/message`],
    ['POST', `${base}/my/chat`],
    ['POST', `${base}/my/favourite`],
    ['POST', `${base}/my/favourites/101`],
    ['POST', `${base}/my/chat`],
    ['POST', `${base}/my/chat/conversations`],
    ['POST', `${base}/my/chat/conversation/1`],
    ['POST', `${base}/listings`],
    ['GET', `${base}/`],
    ['GET', `${base}`],
    ['POST', '/wp-json/rtcl/v2/my/favourites'],
    ['POST', '/v1/my/favourites'],
    ['POST', '/wp-json/rtcl/V1/my/favourites'],
    ['GET', '/'],
  ] as const) {
    it(`${method} ${url} -> 404 rest_no_route`, async () => {
      const t = await refusing;
      const res = await t.app.inject({
        method,
        url,
        headers: { ...t.auth(USERS.sara), 'content-type': 'application/json' },
        payload: method === 'GET' ? undefined : JSON.stringify(VALID.toggle),
      });
      assert.equal(res.statusCode, 404);
      assert.match(res.headers['content-type'] as string, /^application\/json/);
      assert.deepEqual(res.json(), NO_ROUTE);
      await assertNothingStored(t);
    });
  }

  it('answers a malformed percent-encoding in the address with 400 shape B and a request id, without echoing it, and logs it', async () => {
    const chunks: string[] = [];
    const t = await startTestSouk({ LOG_LEVEL: 'info' }, undefined, {
      logDestination: { write: (line: string) => void chunks.push(line) },
    });
    const base = await t.listen();
    for (const path of ['/wp-json/%zz', `${PATHS.toggle}%`, '/%E0%A4%A']) {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'x-request-id': 'bad-url-1' } });
      assert.equal(res.status, 400, path);
      assert.equal(res.headers.get('x-request-id'), 'bad-url-1');
      assert.match(String(res.headers.get('content-type')), /^application\/json/);
      const text = await res.text();
      assert.ok(!text.includes(path), `the address is not echoed: ${text}`);
      assert.deepEqual(JSON.parse(text), {
        status: 'error',
        error: 'BADREQUEST',
        code: '400',
        error_message: 'The request address holds a malformed percent-encoding (% must be followed by two hexadecimal digits).',
      });
    }
    const requestLines = () =>
      chunks
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.msg === 'request');
    // A line is written once its reply has been sent, which the client may see first.
    while (requestLines().length < 3) await new Promise((resolve) => setImmediate(resolve));
    const lines = requestLines();
    assert.deepEqual(
      lines.map((l) => [l.msg, l.reqId, l.method, l.path, l.statusCode, l.client]),
      ['/wp-json/%zz', `${PATHS.toggle}%`, '/%E0%A4%A'].map((path) => ['request', 'bad-url-1', 'POST', path, 400, '127.0.0.1']),
    );
  });

  it('answers 404 for an unknown path without asking for credentials', async () => {
    const t = await startTestSouk();
    const res = await t.app.inject({ method: 'POST', url: '/wp-json/rtcl/v1/nothing-here' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), NO_ROUTE);
  });

  it('serves the interface under API_PREFIX', async () => {
    const t = await startTestSouk({ API_PREFIX: '/api' });
    const toggle = await t.post('/api/v1/my/favourites', VALID.toggle, t.auth(USERS.sara));
    assert.equal(toggle.statusCode, 200);
    assert.deepEqual(toggle.json(), [101]);
    const start = await t.post('/api/v1/my/chat/conversation', VALID.start, t.auth(USERS.sara));
    assert.equal(start.statusCode, 200);
    assert.equal(start.json().listing_id, 101);
    const old = await t.post(PATHS.toggle, VALID.toggle, t.auth(USERS.sara));
    assert.equal(old.statusCode, 404);
    assert.deepEqual(old.json(), NO_ROUTE);
  });

  it('serves the interface at {base_url}/v1 when API_PREFIX is set empty', async () => {
    const t = await startTestSouk({ API_PREFIX: '' });
    const toggle = await t.post('/v1/my/favourites', VALID.toggle, t.auth(USERS.sara));
    assert.equal(toggle.statusCode, 200);
    assert.deepEqual(toggle.json(), [101]);
  });
});

describe('D2: request bodies', () => {
  const cases: [label: string, payload: string, contentType: string | undefined, names: RegExp][] = [
    ['malformed JSON', '{"listing_id": 101,', 'application/json', /JSON/],
    ['JSON with a trailing comma', '{"listing_id": 101,}', 'application/json', /JSON/],
    ['single-quoted JSON', "{'listing_id': 101}", 'application/json', /JSON/],
    ['a JSON array', '[{"listing_id": 101}]', 'application/json', /object/],
    ['a JSON string', '"101"', 'application/json', /object/],
    ['a JSON number', '101', 'application/json', /object/],
    ['JSON null', 'null', 'application/json', /object/],
    ['JSON true', 'true', 'application/json', /object/],
    ['text/plain', JSON.stringify(VALID.start), 'text/plain', /Content-Type/],
    ['application/xml', '<listing_id>101</listing_id>', 'application/xml', /Content-Type/],
    // The start reads the plugin's upload form (docs/files.md), which lacks text here; the toggle refuses the type.
    [
      'multipart/form-data',
      '--x\r\nContent-Disposition: form-data; name="listing_id"\r\n\r\n101\r\n--x--',
      'multipart/form-data; boundary=x',
      /Content-Type|text is required/,
    ],
    ['no Content-Type with a body', JSON.stringify(VALID.start), undefined, /Content-Type/],
    // N2: read as an empty object, so the missing listing_id is what is refused.
    ['an empty body with application/json', '', 'application/json', /listing_id is required/],
    ['a __proto__ key', '{"listing_id": 101, "text": "hi", "__proto__": {"isAdmin": true}}', 'application/json', /__proto__/],
    [
      'a nested __proto__ key',
      '{"listing_id": 101, "text": "hi", "files": [{"url": "https://a.example/", "__proto__": {}}]}',
      'application/json',
      /__proto__/,
    ],
    [
      'a constructor.prototype key',
      '{"listing_id": 101, "text": "hi", "constructor": {"prototype": {"x": 1}}}',
      'application/json',
      /constructor/,
    ],
  ];
  for (const [label, payload, contentType, names] of cases) {
    for (const op of OPS) {
      it(`${op}: ${label} -> 400 BADREQUEST`, async () => {
        const t = await refusing;
        assertBadRequest(await send(t, op, payload, contentType), names);
        await assertNothingStored(t);
      });
    }
  }

  for (const op of OPS) {
    it(`${op}: accepts application/json with a charset and a form body (D2)`, async () => {
      const t = await startTestSouk();
      const json = await send(t, op, JSON.stringify(VALID[op]), 'application/json; charset=utf-8');
      assert.equal(json.statusCode, 200, json.body);
      const form = await send(
        t,
        op,
        new URLSearchParams(VALID[op] as Record<string, string>).toString(),
        'application/x-www-form-urlencoded',
      );
      assert.equal(form.statusCode, 200, form.body);
    });
  }
});

describe('D2: body limit', () => {
  const TOO_LARGE = (limit: number) => ({
    status: 'error',
    error: 'PAYLOAD_TOO_LARGE',
    code: '413',
    error_message: `The request body is larger than the limit of ${limit} bytes.`,
  });
  /** A toggle body of exactly `size` bytes: unknown fields are ignored, so only the size matters. */
  const paddedToggle = (size: number) => {
    const shell = JSON.stringify({ listing_id: LISTINGS.bike, pad: '' });
    return JSON.stringify({ listing_id: LISTINGS.bike, pad: 'x'.repeat(size - shell.length) });
  };

  for (const [label, env, limit] of [
    ['the default 256 KiB', {}, 256 * 1024],
    ['BODY_LIMIT=2048', { BODY_LIMIT: '2048' }, 2048],
  ] as const) {
    it(`accepts a body of exactly ${label} and answers 413 one byte above`, async () => {
      const t = await startTestSouk(env);
      const atLimit = paddedToggle(limit);
      assert.equal(Buffer.byteLength(atLimit), limit);
      const ok = await send(t, 'toggle', atLimit, 'application/json');
      assert.equal(ok.statusCode, 200);
      assert.deepEqual(ok.json(), [101]);
      for (const op of OPS) {
        const over = await send(t, op, paddedToggle(limit + 1), 'application/json');
        assert.equal(over.statusCode, 413);
        assert.deepEqual(over.json(), TOO_LARGE(limit));
      }
      const form = await send(t, 'start', `listing_id=101&text=${'x'.repeat(limit)}`, 'application/x-www-form-urlencoded');
      assert.equal(form.statusCode, 413);
      assert.deepEqual(form.json(), TOO_LARGE(limit));
      assert.equal((await t.souk.store.db.selectFrom('favourites').select('id').execute()).length, 1);
      assert.equal((await t.souk.store.db.selectFrom('messages').select('id').execute()).length, 0);
    });
  }

  it('counts the limit in bytes, not characters', async () => {
    const t = await startTestSouk({ BODY_LIMIT: '2048' });
    // 700 emoji: 1400 UTF-16 units, 2800 bytes.
    const res = await send(t, 'toggle', JSON.stringify({ listing_id: 101, pad: '😀'.repeat(700) }), 'application/json');
    assert.equal(res.statusCode, 413);
  });
});

// ---- the sweep: every reply is 200 or a documented 4xx shape, never 5xx ----

const LONG = 'x'.repeat(100_000);
function nested(depth: number): unknown {
  let value: unknown = 'deep';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** Values of every JSON type and some nasty ones, for any field. */
const BAD_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -0.5,
  1e308,
  -1e308,
  2 ** 53,
  2 ** 63,
  Number.MIN_VALUE,
  '',
  ' ',
  '0',
  '-1',
  '1.5',
  'abc',
  '12abc',
  '+101',
  ' 101',
  '101 ',
  '0x65',
  '1e2',
  '١٠١',
  '１０１',
  '101\u0000',
  '\u0000',
  '\ud800',
  '\udfff\ud800',
  '😀'.repeat(50),
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '../../etc/passwd',
  '%00',
  '${7*7}',
  '{{7*7}}',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  LONG,
  '9'.repeat(400),
  [],
  [1],
  [101],
  ['101'],
  [null],
  [[]],
  {},
  { id: 101 },
  { url: 'https://a.example/' },
  nested(50),
];

/** Raw JSON texts the JSON.stringify route cannot produce. */
const RAW_BODIES = [
  '{"listing_id": 1e400, "text": "hi"}',
  '{"listing_id": -1e400, "text": "hi"}',
  '{"listing_id": 101.0, "text": "hi"}',
  '{"listing_id": 1.01e2, "text": "hi"}',
  '{"listing_id": 101, "text": "hi", "temp_id": 1e400}',
  '{"listing_id": 101, "text": "hi", "temp_id": 7.0}',
  '{"listing_id": 101, "listing_id": 102, "text": "hi"}',
  '{"listing_id": 101, "text": "\\ud800"}',
  '{"listing_id": 101, "text": "a\\u0000b"}',
  '{"listing_id": 101, "text": "hi"} trailing',
  '{"listing_id": 101, "text": "hi"}{"listing_id": 102}',
  '\ufeff{"listing_id": 101, "text": "hi"}',
  '{"listing_id": NaN, "text": "hi"}',
  '{"listing_id": 0101, "text": "hi"}',
  `{"listing_id": 101, "text": "hi", "x": ${'['.repeat(5000)}${']'.repeat(5000)}}`,
  `{"listing_id": 101, "text": "hi", "x": ${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`,
  '{"listing_id": 101, "text": "hi", "files": [{"url": "https://a.example/x", "size": 1e400}]}',
];

function sweepBodies(op: Op): unknown[] {
  const base = VALID[op];
  const fields = op === 'toggle' ? ['listing_id'] : ['listing_id', 'text', 'files', 'temp_id'];
  const bodies: unknown[] = [];
  for (const field of fields) {
    for (const value of BAD_VALUES) bodies.push({ ...base, [field]: value });
    bodies.push(Object.fromEntries(Object.entries(base).filter(([k]) => k !== field)));
  }
  if (op === 'start') {
    const file = { url: 'https://cdn.example/a.png' };
    for (const value of BAD_VALUES) {
      for (const key of ['url', 'name', 'mime_type', 'size', 'extra']) bodies.push({ ...base, files: [{ ...file, [key]: value }] });
    }
    bodies.push({ ...base, files: Array.from({ length: 1000 }, () => file) });
    bodies.push({ ...base, text: '', files: [{ url: `https://cdn.example/${LONG}` }] });
    bodies.push({ ...base, text: '\u200b' }, { ...base, text: '\u00a0\u3000' }, { ...base, text: '\r\n' });
  }
  // The bad values as whole bodies, and as unknown extra fields (ignored, D2).
  for (const value of BAD_VALUES) bodies.push(value, { ...base, [`x${bodies.length}`]: value });
  bodies.push({}, { ...base, con_id: 0 }, { ...base, __proto__x: 1 }, { [LONG]: 1 }, { ...base, extra: nested(100) });
  return bodies;
}

function assertDocumented(op: Op, res: LightMyRequestResponse, what: string): void {
  const status = res.statusCode;
  const body = res.json();
  const where = `${what} -> ${status} ${res.body.slice(0, 200)}`;
  if (status === 200) {
    if (op === 'toggle') assert.ok(Array.isArray(body) && body.every(Number.isInteger), where);
    else assert.ok(Number.isInteger(body.con_id) && Number.isInteger(body.newMessage.message_id), where);
    return;
  }
  if (status === 400 || status === 413) {
    assert.deepEqual(Object.keys(body), ['status', 'error', 'code', 'error_message'], where);
    assert.equal(body.status, 'error', where);
    assert.equal(body.error, status === 400 ? 'BADREQUEST' : 'PAYLOAD_TOO_LARGE', where);
    assert.equal(body.code, String(status), where);
    assert.ok(typeof body.error_message === 'string' && body.error_message !== '', where);
    return;
  }
  if (status === 403 && op === 'start') {
    assert.deepEqual(body, { code: 'FORBIDDEN', message: 'You are not permitted to access this conversation.' }, where);
    return;
  }
  assert.fail(`undocumented answer: ${where}`);
}

describe('sweep of bad inputs', () => {
  for (const op of OPS) {
    it(`${op}: every reply is 200 or a documented 4xx shape, never 5xx`, async () => {
      const t = await startTestSouk();
      const bodies = sweepBodies(op);
      let sent = 0;
      const statuses = new Map<number, number>();
      const record = (res: LightMyRequestResponse) => statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      for (const body of bodies) {
        const payload = JSON.stringify(body);
        const res = await send(t, op, payload, 'application/json');
        record(res);
        assertDocumented(op, res, payload.slice(0, 120));
        sent++;
      }
      for (const payload of RAW_BODIES) {
        const res = await send(t, op, payload, 'application/json');
        record(res);
        assertDocumented(op, res, payload.slice(0, 120));
        sent++;
      }
      // The same bad values as form fields.
      for (const value of BAD_VALUES.filter((v) => typeof v !== 'object' || v === null)) {
        for (const field of Object.keys(VALID[op])) {
          const form = new URLSearchParams(
            Object.entries({ ...VALID[op], [field]: value }).map(([k, v]): [string, string] => [k, String(v)]),
          ).toString();
          const res = await send(t, op, form, 'application/x-www-form-urlencoded');
          record(res);
          assertDocumented(op, res, `form ${form.slice(0, 120)}`);
          sent++;
        }
      }
      assert.ok(sent >= 150, `sent ${sent}`);
      // Both outcomes occur: the sweep is not all-rejected by some earlier failure.
      assert.ok((statuses.get(400) ?? 0) > 50, JSON.stringify([...statuses]));
      assert.ok((statuses.get(200) ?? 0) > 0, JSON.stringify([...statuses]));
    });
  }
});
