/**
 * Limits (docs/hardening.md): body size, text length, number of files, header size, and slow
 * clients cut off by the header and request timeouts. Over a real socket, so Node's HTTP parser
 * and its timers take part.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, PATHS, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { connect, type Socket } from 'node:net';
import { httpRequest, rawRequest } from '../helpers/raw-http.js';

const B = (status: number, error: string, message: string) => ({ status: 'error', error, code: String(status), error_message: message });
const TOO_LARGE = B(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than the limit of 262144 bytes.');
const TIMEOUTS = { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' };
const TIMED_OUT = B(
  408,
  'REQUEST_TIMEOUT',
  'The request was not received in time (headers within 1000 ms, the whole request within 2000 ms).',
);

async function listening(env: Record<string, string> = {}): Promise<{ t: TestSouk; port: number }> {
  const t = await startTestSouk(env);
  const base = await t.listen();
  return { t, port: Number(new URL(base).port) };
}

const json = (res: { body: string } | undefined) => JSON.parse(res?.body ?? 'null') as unknown;

/**
 * The largest body a legitimate client can send to start a conversation: every field at its
 * limit (text 5000 code points; 10 files, url 2048, name and mime_type 255 characters), each
 * character at the worst escaping a standard JSON encoder writes for what the field can hold:
 * text and name any character, an astral one as a \u surrogate pair (12 bytes: PHP's
 * json_encode, Python's json.dumps); url and mime_type are ASCII, `&` as \u0026 (6 bytes:
 * Go's and Gson's HTML-safe escaping).
 */
function largestLegitimateBody(listingId: number): string {
  const astral = '\\ud83d\\ude00';
  const amp = '\\u0026';
  const file = `{"url":"https://${amp.repeat(2040)}","name":"${astral.repeat(255)}","mime_type":"${amp.repeat(255)}","size":${Number.MAX_SAFE_INTEGER}}`;
  const files = Array.from({ length: 10 }, () => file).join(',');
  return `{"listing_id":${listingId},"text":"${astral.repeat(5000)}","files":[${files}],"temp_id":"-${'9'.repeat(32)}"}`;
}

describe('limits', () => {
  it('a body over BODY_LIMIT (256 KiB) gets 413, as JSON, as a form and chunked', async () => {
    const { t, port } = await listening();
    const auth = Object.entries(t.auth(USERS.amina));
    const big = JSON.stringify({ listing_id: LISTINGS.bike, text: 'x'.repeat(300 * 1024) });
    for (const [type, body] of [
      ['application/json', big],
      ['application/x-www-form-urlencoded', `listing_id=101&text=${'x'.repeat(300 * 1024)}`],
    ] as const) {
      const res = await rawRequest(
        port,
        httpRequest('POST', PATHS.start, [...auth, ['Content-Type', type], ['Content-Length', String(body.length)]], body),
      );
      assert.equal(res.response?.status, 413, type);
      assert.deepEqual(json(res.response), TOO_LARGE);
    }
    const chunk = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;
    const chunked = Array.from({ length: 6 }, () => chunk('x'.repeat(64 * 1024))).join('') + '0\r\n\r\n';
    const res = await rawRequest(
      port,
      httpRequest('POST', PATHS.start, [...auth, ['Content-Type', 'application/json'], ['Transfer-Encoding', 'chunked']], chunked),
    );
    assert.equal(res.response?.status, 413);
    assert.deepEqual(json(res.response), TOO_LARGE);
    // A declared length over the limit is refused before the body is read.
    const declared = await rawRequest(
      port,
      httpRequest(
        'POST',
        PATHS.toggle,
        [...auth, ['Content-Type', 'application/json'], ['Content-Length', String(10 * 1024 * 1024)]],
        '{"listing_id":',
      ),
    );
    assert.equal(declared.response?.status, 413);
    assert.deepEqual(json(declared.response), TOO_LARGE);
    assert.deepEqual(await t.souk.store.db.selectFrom('messages').selectAll().execute(), []);
  });

  it('the largest legitimate body (every field at its limit, escaped at worst) fits the default BODY_LIMIT', async () => {
    const { t, port } = await listening();
    const body = largestLegitimateBody(LISTINGS.bike);
    assert.ok(Buffer.byteLength(body) > 220 * 1024, `the body is ${Buffer.byteLength(body)} bytes`);
    const res = await rawRequest(
      port,
      httpRequest(
        'POST',
        PATHS.start,
        [...Object.entries(t.auth(USERS.amina)), ['Content-Type', 'application/json'], ['Content-Length', String(Buffer.byteLength(body))]],
        body,
      ),
      { untilComplete: true },
    );
    assert.equal(res.response?.status, 200, res.response?.body.slice(0, 300));
    assert.equal((json(res.response) as { newMessage: { attachments: unknown[] } }).newMessage.attachments.length, 10);
  });

  it('a JSON body nested deeper than 16 levels is refused with 400 before it is parsed; 16 levels are read', async () => {
    const { t } = await listening();
    const nested = (depth: number, open: string, close: string) => `${open.repeat(depth)}1${close.repeat(depth)}`;
    const body = (extra: string) => `{"listing_id":101,"extra":${extra}}`;
    const tooDeep = B(400, 'BADREQUEST', 'The request body is nested too deeply.');
    // The object itself is the first level: 15 more under it make 16.
    for (const extra of [nested(16, '[', ']'), nested(100_000, '[', ']'), nested(16, '{"a":', '}'), nested(40_000, '{"a":', '}')]) {
      const res = await t.post(PATHS.toggle, body(extra), t.auth(USERS.amina));
      assert.equal(res.statusCode, 400, extra.slice(0, 40));
      assert.deepEqual(res.json(), tooDeep);
    }
    // Not valid JSON, and deep: refused for its depth without being parsed.
    assert.deepEqual((await t.post(PATHS.toggle, '['.repeat(100_000), t.auth(USERS.amina))).json(), tooDeep);
    // Brackets inside a string are text, not structure, after an escaped backslash and quote too.
    const inString = `{"listing_id":101,"text":"${String.raw`\\\"`}${'['.repeat(100)}","deep":${nested(15, '[', ']')}}`;
    const fits = await t.post(PATHS.toggle, inString, t.auth(USERS.amina));
    assert.equal(fits.statusCode, 200, fits.body);
    assert.deepEqual(fits.json(), [LISTINGS.bike]);
  });

  it('text over TEXT_MAX_LENGTH (5000 characters, counted as code points) gets 400; 5000 emoji pass', async () => {
    const { t } = await listening();
    const long = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'x'.repeat(5001) });
    assert.equal(long.statusCode, 400);
    assert.deepEqual(long.json(), B(400, 'BADREQUEST', 'text must be at most 5000 characters.'));
    const emoji = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: '🙂'.repeat(5000) });
    assert.equal(emoji.statusCode, 200);
    assert.equal(emoji.json().newMessage.message, '🙂'.repeat(5000));
  });

  it('text holding NUL or a lone surrogate gets 400 (neither can be stored verbatim); other control characters are stored as sent', async () => {
    const { t } = await listening();
    const nul = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'a\u0000b' });
    assert.deepEqual(nul.json(), B(400, 'BADREQUEST', 'text must not contain the NUL character (U+0000).'));
    for (const text of ['\ud800', 'x\udc00y', '\ud83d']) {
      const lone = await t.post(PATHS.start, `{"listing_id":101,"text":${JSON.stringify(text)}}`, t.auth(USERS.amina));
      assert.deepEqual(
        lone.json(),
        B(400, 'BADREQUEST', 'text must be valid Unicode: it holds half of a surrogate pair (U+D800-U+DFFF) without the other half.'),
      );
    }
    const control = '\u0001\u0007\t\r\n\u001b[31m\u007f\u202e🙂';
    const ok = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: control });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().newMessage.message, control);
    const stored = await t.souk.store.db.selectFrom('messages').select('message').execute();
    assert.deepEqual(stored, [{ message: control }]);
  });

  it('an attachment whose url, name or mime_type holds NUL or a lone surrogate gets 400 and stores nothing', async () => {
    const { t } = await listening();
    const expected = B(
      400,
      'BADREQUEST',
      'files[].url, name and mime_type must be plain text: no NUL character (U+0000) and no half of a surrogate pair (U+D800-U+DFFF) without the other half.',
    );
    const url = 'https://cdn.example/a.png';
    for (const file of [
      { url, name: 'a\ud800.png' },
      { url, mime_type: 'image/png\u0000' },
      { url: 'https://cdn.example/a\u0000.png' },
      { url, name: '\udc00' },
    ]) {
      const refused = await t.post(
        PATHS.start,
        JSON.stringify({ listing_id: LISTINGS.bike, text: 'hi', files: [file] }),
        t.auth(USERS.amina),
      );
      assert.deepEqual(refused.json(), expected, JSON.stringify(file));
    }
    assert.deepEqual(await t.souk.store.db.selectFrom('messages').select('id').execute(), []);
    const paired = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: '', files: [{ url, name: '🙂.png' }] });
    assert.equal(paired.statusCode, 200);
    assert.equal(paired.json().newMessage.attachments[0].name, '🙂.png');
  });

  it('more than 10 files gets 400', async () => {
    const { t } = await listening();
    const file = (i: number) => ({ url: `https://cdn.example/f${i}.jpg`, name: `f${i}.jpg` });
    const eleven = await t.start(USERS.amina, {
      listing_id: LISTINGS.bike,
      text: '',
      files: Array.from({ length: 11 }, (_, i) => file(i)),
    });
    assert.equal(eleven.statusCode, 400);
    assert.deepEqual(
      eleven.json(),
      B(400, 'BADREQUEST', 'files must be an array of at most 10 objects {url, name?, mime_type?, size?} with an http(s) url.'),
    );
    const ten = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: '', files: Array.from({ length: 10 }, (_, i) => file(i)) });
    assert.equal(ten.statusCode, 200);
    assert.equal(ten.json().newMessage.attachments.length, 10);
  });

  it('a request head over MAX_HEADER_SIZE (16 KiB by default) gets 431 in shape B, many small headers included', async () => {
    const { t, port } = await listening();
    const expected = B(431, 'REQUEST_HEADER_FIELDS_TOO_LARGE', 'The request headers are larger than the limit of 16384 bytes.');
    const one = await rawRequest(port, httpRequest('POST', PATHS.toggle, [['X-Padding', 'p'.repeat(20_000)]]));
    assert.equal(one.response?.status, 431);
    assert.deepEqual(json(one.response), expected);
    const many = await rawRequest(
      port,
      httpRequest(
        'POST',
        PATHS.toggle,
        Array.from({ length: 1000 }, (_, i) => [`X-H${i}`, 'v'.repeat(20)] as [string, string]),
      ),
    );
    assert.equal(many.response?.status, 431);
    assert.deepEqual(json(many.response), expected);
    // Just under the limit is served.
    const auth = Object.entries(t.auth(USERS.amina));
    const fits = await rawRequest(
      port,
      httpRequest(
        'POST',
        PATHS.toggle,
        [...auth, ['Content-Type', 'application/json'], ['Content-Length', '19'], ['X-Padding', 'p'.repeat(14_000)]],
        '{"listing_id":101}\n',
      ),
    );
    assert.equal(fits.response?.status, 200);
  });
});

/** A toggle on a kept-alive connection (a bodyless GET would be answered with Connection: close). */
function keptAliveToggle(t: TestSouk): string {
  const body = JSON.stringify({ listing_id: LISTINGS.bike });
  const auth = t.auth(USERS.amina);
  return (
    `POST ${PATHS.toggle} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth.authorization}\r\nX-API-KEY: ${auth['x-api-key']}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
  );
}

/** Sends a request on the socket and resolves with the head of its answer. */
function answerOn(socket: Socket, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const onData = (d: Buffer) => {
      received += d.toString('latin1');
      if (/\r\n\r\n\[/.test(received)) {
        socket.off('data', onData);
        resolve(received);
      }
    };
    socket.once('error', reject);
    socket.on('data', onData);
    socket.write(request);
  });
}

/** A connection that has been served one request and stays open, so the server has surely accepted it. */
async function servedConnection(port: number, request: string): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  const head = await answerOn(socket, request);
  assert.match(head, /^HTTP\/1\.1 200 /);
  assert.match(head, /connection: keep-alive/i);
  return socket;
}

describe('connections', () => {
  it('connections beyond MAX_CONNECTIONS are closed unanswered, the open ones still served, and the server stays up', async () => {
    // No per-address cap: every connection here comes from 127.0.0.1 (connection-limits.test.ts tests that cap).
    const { t, port } = await listening({
      MAX_CONNECTIONS: '3',
      MAX_CONNECTIONS_PER_ADDRESS: '0',
      METRICS_TOKEN: 'metrics-token-0123456789',
    });
    const toggle = keptAliveToggle(t);
    const open = [await servedConnection(port, toggle), await servedConnection(port, toggle), await servedConnection(port, toggle)];
    const healthz = httpRequest('GET', '/healthz', []);
    for (let i = 0; i < 3; i++) {
      const refused = await rawRequest(port, healthz);
      assert.equal(refused.raw.length, 0, 'nothing is answered on a connection beyond the cap');
      assert.equal(refused.closedByServer, true);
    }
    // The open connections are still served.
    assert.match(await answerOn(open[0] as Socket, toggle), /^HTTP\/1\.1 200 /);
    // Once one closes, a new connection is served.
    const closing = open.pop() as Socket;
    closing.destroy();
    while (
      (await new Promise<number>((resolve, reject) => t.app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))))) >= 3
    ) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    const served = await rawRequest(port, healthz);
    assert.equal(served.response?.status, 200);
    for (const socket of open) socket.destroy();
    const metrics = await t.app.inject({ url: '/metrics', headers: { authorization: 'Bearer metrics-token-0123456789' } });
    assert.match(metrics.body, /^souk_http_connections_dropped_total 3$/m);
  });
});

describe('slow clients', () => {
  it('a client that sends part of its head and stops is answered 408 and cut off', async () => {
    const { port } = await listening(TIMEOUTS);
    const res = await rawRequest(port, `POST ${PATHS.toggle} HTTP/1.1\r\nHost: x\r\nX-API-KEY: abc`, { timeoutMs: 15_000 });
    assert.ok(res.closedByServer, 'the server closed the connection');
    assert.equal(res.response?.status, 408);
    assert.deepEqual(json(res.response), TIMED_OUT);
  });

  it('a client that trickles its head one line every 300 ms is cut off', async () => {
    const { port } = await listening(TIMEOUTS);
    const lines = [`POST ${PATHS.toggle} HTTP/1.1\r\n`, ...Array.from({ length: 40 }, (_, i) => `X-Slow-${i}: ${i}\r\n`)];
    const res = await rawRequest(port, lines, { pauseMs: 300, timeoutMs: 15_000 });
    assert.ok(res.closedByServer, 'the server closed the connection before the client finished');
    assert.equal(res.response?.status, 408);
    assert.deepEqual(json(res.response), TIMED_OUT);
  });

  it('a client that connects and sends nothing is cut off', async () => {
    const { port } = await listening(TIMEOUTS);
    const res = await rawRequest(port, [], { timeoutMs: 15_000 });
    assert.ok(res.closedByServer, 'the server closed the connection');
  });

  it('a client that never finishes its body is answered 408 and cut off, and nothing is stored', async () => {
    const { t, port } = await listening(TIMEOUTS);
    const auth = Object.entries(t.auth(USERS.amina));
    const body = JSON.stringify({ listing_id: LISTINGS.bike, text: 'never finished' });
    const res = await rawRequest(
      port,
      [
        httpRequest(
          'POST',
          PATHS.start,
          [...auth, ['Content-Type', 'application/json'], ['Content-Length', String(body.length + 50)]],
          body,
        ),
      ],
      { timeoutMs: 15_000 },
    );
    assert.ok(res.closedByServer, 'the server closed the connection');
    assert.equal(res.response?.status, 408);
    assert.deepEqual(json(res.response), TIMED_OUT);
    assert.deepEqual(await t.souk.store.db.selectFrom('messages').selectAll().execute(), []);
    // And the server goes on serving.
    assert.equal((await t.toggle(USERS.amina, { listing_id: LISTINGS.bike })).statusCode, 200);
  });

  it('a body trickled slowly past REQUEST_TIMEOUT_MS is cut off even though bytes keep coming', async () => {
    const { t, port } = await listening(TIMEOUTS);
    const auth = Object.entries(t.auth(USERS.amina));
    const body = JSON.stringify({ listing_id: LISTINGS.bike, text: 'y'.repeat(60) });
    const head = httpRequest('POST', PATHS.start, [...auth, ['Content-Type', 'application/json'], ['Content-Length', String(body.length)]]);
    const res = await rawRequest(port, [head, ...body.split('').map((c) => c)], { pauseMs: 100, timeoutMs: 15_000 });
    assert.ok(res.closedByServer, 'the server closed the connection');
    assert.equal(res.response?.status, 408);
    assert.deepEqual(json(res.response), TIMED_OUT);
  });

  it('an auth error answered before the body arrived closes the connection (no second, stray answer)', async () => {
    const { port } = await listening(TIMEOUTS);
    const res = await rawRequest(
      port,
      [
        httpRequest(
          'POST',
          PATHS.toggle,
          [
            ['Content-Type', 'application/json'],
            ['Content-Length', '100'],
          ],
          '{"listing_id":',
        ),
      ],
      { timeoutMs: 15_000 },
    );
    assert.ok(res.closedByServer);
    assert.equal(res.response?.status, 401);
    assert.equal(res.response?.headers.connection, 'close');
    assert.equal(res.raw.toString('latin1').match(/HTTP\/1\.1 /g)?.length, 1, 'exactly one answer on the connection');
  });
});

describe('framing', () => {
  it('a whole request followed by unreadable bytes is answered, then the connection closed: no write goes unreported', async () => {
    const { t, port } = await listening();
    const auth = Object.entries(t.auth(USERS.amina));
    const request = httpRequest(
      'POST',
      PATHS.toggle,
      [...auth, ['Content-Type', 'application/json'], ['Content-Length', '18']],
      '{"listing_id":101}',
    );
    const res = await rawRequest(port, Buffer.concat([request, Buffer.from('GARBAGE \x00\x01 HTTP/9.9\r\n\r\n')]));
    assert.ok(res.closedByServer);
    assert.equal(res.response?.status, 200);
    assert.equal(res.response?.body, '[101]');
    assert.equal(res.raw.toString('latin1').match(/HTTP\/1\.1 /g)?.length, 1, 'one answer, for the whole request');
    assert.deepEqual((await t.toggle(USERS.amina, { listing_id: LISTINGS.table })).json(), [101, 103]);
  });

  it('a Transfer-Encoding that does not end in chunked is refused with 400 in shape B (its body has no knowable end)', async () => {
    const { t, port } = await listening();
    const auth = Object.entries(t.auth(USERS.amina));
    for (const coding of ['gzip', 'identity', 'chunked, gzip']) {
      const head = httpRequest('POST', PATHS.toggle, [...auth, ['Content-Type', 'application/json'], ['Transfer-Encoding', coding]]);
      const res = await rawRequest(port, [head, '{"listing_id":101}'], { pauseMs: 200 });
      assert.equal(res.response?.status, 400, coding);
      assert.deepEqual(json(res.response), B(400, 'BADREQUEST', 'The request is not valid HTTP/1.1.'));
      assert.ok(res.closedByServer);
    }
    assert.deepEqual(await t.souk.store.db.selectFrom('favourites').selectAll().execute(), []);
  });

  it('an Expect header other than 100-continue is ignored rather than answered 417', async () => {
    const { t, port } = await listening();
    const auth = Object.entries(t.auth(USERS.amina));
    const res = await rawRequest(
      port,
      httpRequest(
        'POST',
        PATHS.toggle,
        [...auth, ['Content-Type', 'application/json'], ['Content-Length', '18'], ['Expect', 'teapot']],
        '{"listing_id":101}',
      ),
    );
    assert.equal(res.response?.status, 200);
    assert.equal(res.response?.body, '[101]');
  });
});
