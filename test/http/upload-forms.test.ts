/**
 * The upload form's request side (issue 46 items 3, 4, 5, 7, 14, 15; http/uploads.ts), over real
 * sockets: only the route's fields, sized, and together within BODY_LIMIT; typed parts refused
 * unread; fields before files; everything the use case would refuse answered before a byte of a
 * file is read; forms in flight bounded (503) and their bodies timed (408); a retry's files not
 * stored; the image queue bounded; the temporary files gone however the request ends. On SQLite,
 * and on PostgreSQL when TEST_DATABASE_URL names one.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { httpRequest, parseResponse, rawRequest, type RawResponse } from '../helpers/raw-http.js';
import { FORM_TYPE, formBody, formPart, type FormPart } from '../helpers/multipart.js';
import { until } from '../helpers/until.js';

const API = '/wp-json/rtcl/v1';
const MESSAGE = `${API}/my/chat/message`;
const START = `${API}/my/chat/conversation`;
const { amina, youssef, sara } = USERS;

async function filesUnder(root: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true }).catch(() => [])) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await filesUnder(root, rel)));
    else out.push(rel);
  }
  return out.sort();
}

const png = (size: number, background = '#0a0') =>
  sharp({ create: { width: size, height: size, channels: 3, background } })
    .png()
    .toBuffer();

interface Server {
  t: TestSouk;
  port: number;
  dir: string;
  conId: number;
  headers(user: number, length: number): [string, string][];
  /** Sends the whole form and reads the answer. */
  post(path: string, user: number, parts: FormPart[]): Promise<RawResponse>;
  temporary(): Promise<string[]>;
  stored(): Promise<string[]>;
}

async function server(env: Record<string, string> = {}): Promise<Server> {
  const dir = await mkdtemp(join(tmpdir(), 'souk-forms-'));
  const t = await startTestSouk({ FILES_DIR: dir, FILES_SWEEP_INTERVAL_S: '0', ...env });
  const port = Number(new URL(await t.listen()).port);
  const started = await t.start(amina, { listing_id: LISTINGS.bike, text: 'Hello' });
  assert.equal(started.statusCode, 200, started.body);
  const headers = (user: number, length: number): [string, string][] => [
    ['X-API-KEY', t.apiKey],
    ['Authorization', `Bearer ${t.token(user)}`],
    ['Content-Type', FORM_TYPE],
    ['Content-Length', String(length)],
  ];
  return {
    t,
    port,
    dir,
    conId: started.json().con_id,
    headers,
    async post(path, user, parts) {
      const body = formBody(parts);
      const res = await rawRequest(port, httpRequest('POST', path, headers(user, body.length), body), {
        untilComplete: true,
        timeoutMs: 15_000,
      });
      assert.ok(res.response, `no answer: ${res.error}`);
      return res.response;
    },
    temporary: async () => (await filesUnder(dir)).filter((f) => f.startsWith('.uploads/')),
    stored: async () => (await filesUnder(dir)).filter((f) => f.startsWith('chat/')),
  };
}

/**
 * A form sent up to `sent` bytes of its declared length, then held: the answer, if one comes
 * before the body is whole, and the socket (to reset or keep).
 */
function heldForm(
  s: Server,
  path: string,
  user: number,
  parts: FormPart[],
  sent: Buffer,
): { socket: Socket; answer: Promise<RawResponse | undefined> } {
  const whole = formBody(parts);
  const socket = connect(s.port, '127.0.0.1');
  const chunks: Buffer[] = [];
  const answer = new Promise<RawResponse | undefined>((resolve) => {
    socket.on('data', (d) => {
      chunks.push(d);
      const res = parseResponse(Buffer.concat(chunks));
      if (res && res.body.length >= Number(res.headers['content-length'] ?? 0)) resolve(res);
    });
    socket.on('close', () => resolve(parseResponse(Buffer.concat(chunks))));
    socket.on('error', () => undefined);
  });
  socket.write(httpRequest('POST', path, s.headers(user, whole.length), sent));
  return { socket, answer };
}

const errorOf = (res: RawResponse) => JSON.parse(res.body) as { status: string; error: string; code: string; error_message: string };

// One server per part, started one after another at the top level: they close when the file ends.
const s1 = await server();
const s2 = await server({ MESSAGES_PER_MINUTE: '3' });
const s3 = await server({ FILES_UPLOADS_IN_FLIGHT: '2', FILES_UPLOAD_TIMEOUT_MS: '1500' });
const s4 = await server({ FILES_IMAGE_CONCURRENCY: '1', FILES_IMAGE_QUEUE: '0' });
const s5 = await server({ BODY_LIMIT: '1024', TEXT_MAX_LENGTH: '1000' });

describe('upload forms: what a form may hold', async () => {
  const s = s1;
  const photo = await png(32);

  it('refuses a field the route does not take, and a 20 x BODY_LIMIT form, before reading it all', async () => {
    const big = 'x'.repeat(256 * 1024);
    const res = await s.post(MESSAGE, amina, [
      { name: 'con_id', body: String(s.conId) },
      { name: 'text', body: 'hi' },
      ...Array.from({ length: 20 }, (_, i) => ({ name: `x${i}`, body: big })),
    ]);
    assert.equal(res.status, 400, res.body);
    assert.match(errorOf(res).error_message, /a field this route does not take: "x0"/);
    assert.equal(await s.t.souk.store.repos.messages.countOf(s.conId, 0), 1, 'nothing stored');
  });

  it('refuses a field given twice, an id longer than a few bytes, a text beyond its bytes', async () => {
    let res = await s.post(MESSAGE, amina, [
      { name: 'con_id', body: String(s.conId) },
      { name: 'text', body: 'a' },
      { name: 'text', body: 'b' },
    ]);
    assert.deepEqual([res.status, errorOf(res).error_message], [400, 'The form gives the field "text" twice.']);
    res = await s.post(MESSAGE, amina, [
      { name: 'con_id', body: String(s.conId) },
      { name: 'temp_id', body: '9'.repeat(100) },
    ]);
    assert.deepEqual([res.status, errorOf(res).error_message], [400, 'The form\'s field "temp_id" is longer than 64 bytes.']);
    // 5000 characters of 4 bytes each are 20000 bytes: one more byte cannot be 5000 characters.
    res = await s.post(MESSAGE, amina, [
      { name: 'con_id', body: String(s.conId) },
      { name: 'text', body: `${'🙂'.repeat(5000)}x` },
    ]);
    assert.deepEqual([res.status, errorOf(res).error_message], [400, 'text must be at most 5000 characters.']);
    res = await s.post(MESSAGE, amina, [
      { name: 'con_id', body: String(s.conId) },
      { name: 'text', body: '🙂'.repeat(5000) },
    ]);
    assert.equal(res.status, 200, res.body);
  });

  it('refuses non-file parts with a content type unread (a JSON part is never parsed)', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'text/html']) {
      const res = await s.post(MESSAGE, amina, [
        { name: 'con_id', body: String(s.conId) },
        { name: 'text', type, body: '['.repeat(50_000) },
      ]);
      assert.equal(res.status, 400, res.body);
      assert.equal(errorOf(res).error_message, `The form's field "text" must be plain text, not ${type.split(';')[0]}.`);
    }
    const plain = await s.post(MESSAGE, amina, [
      { name: 'con_id', body: String(s.conId) },
      { name: 'text', type: 'text/plain; charset=utf-8', body: 'plain is fine' },
    ]);
    assert.equal(plain.status, 200, plain.body);
  });

  it('wants the fields before the files', async () => {
    let res = await s.post(MESSAGE, amina, [
      { name: 'files[]', filename: 'a.png', type: 'image/png', body: photo },
      { name: 'con_id', body: String(s.conId) },
    ]);
    assert.deepEqual(
      [res.status, errorOf(res).error_message],
      [400, 'The form\'s fields go before its files: "con_id" must come before the first file.'],
    );
    res = await s.post(MESSAGE, amina, [
      { name: 'con_id', body: String(s.conId) },
      { name: 'files[]', filename: 'a.png', type: 'image/png', body: photo },
      { name: 'text', body: 'late' },
    ]);
    assert.deepEqual(
      [res.status, errorOf(res).error_message],
      [400, 'The form\'s fields go before its files: "text" must come before the first file.'],
    );
    res = await s.post(START, sara, [
      { name: 'text', body: 'no listing yet' },
      { name: 'files[]', filename: 'a.png', type: 'image/png', body: photo },
    ]);
    assert.match(errorOf(res).error_message, /"listing_id" must come before the first file/);
    // con_id may come in the query string.
    res = await s.post(`${MESSAGE}?con_id=${s.conId}`, amina, [{ name: 'files[]', filename: 'a.png', type: 'image/png', body: photo }]);
    assert.equal(res.status, 200, res.body);
    await until(async () => (await s.temporary()).length === 0, 5000);
  });

  it("a retry's new files are neither read nor stored: it answers the first message", async () => {
    const first = await s.post(MESSAGE, amina, [
      { name: 'con_id', body: String(s.conId) },
      { name: 'temp_id', body: '77' },
      { name: 'files[]', filename: 'first.png', type: 'image/png', body: await png(40, '#123') },
    ]);
    assert.equal(first.status, 200, first.body);
    const stored = await s.stored();
    const again = await s.post(MESSAGE, amina, [
      { name: 'con_id', body: String(s.conId) },
      { name: 'temp_id', body: '77' },
      { name: 'files[]', filename: 'other.png', type: 'image/png', body: await png(41, '#456') },
    ]);
    assert.equal(again.status, 200, again.body);
    assert.equal(JSON.parse(again.body).message_id, JSON.parse(first.body).message_id);
    assert.deepEqual(JSON.parse(again.body).attachments, JSON.parse(first.body).attachments);
    assert.deepEqual(await s.stored(), stored, "the retry's file is not stored");
  });
});

describe('upload forms: authorised before their files are read', async () => {
  const s = s2;
  const photo = await png(600);
  /** Fields, then a file part of which only the first half is sent: an answer can only come before the file is read. */
  const refusedEarly = async (path: string, user: number, fields: FormPart[]) => {
    const parts = [...fields, { name: 'files[]', filename: 'p.png', type: 'image/png', body: photo }];
    const upToFile = Buffer.concat(fields.map(formPart));
    const file = formPart(parts.at(-1)!);
    const held = heldForm(s, path, user, parts, Buffer.concat([upToFile, file.subarray(0, file.length / 2)]));
    const res = await Promise.race([held.answer, new Promise<undefined>((r) => setTimeout(() => r(undefined), 5000))]);
    held.socket.destroy();
    assert.ok(res, 'answered before the file was read');
    return res;
  };

  it('refuses a stranger, a blocked user, an own or missing listing, without the file', async () => {
    let res = await refusedEarly(MESSAGE, sara, [{ name: 'con_id', body: String(s.conId) }]);
    assert.equal(res.status, 403, res.body);
    res = await refusedEarly(START, amina, [{ name: 'listing_id', body: String(LISTINGS.aminasOwn) }]);
    assert.equal(res.status, 403, res.body);
    res = await refusedEarly(START, amina, [{ name: 'listing_id', body: '99999' }]);
    assert.deepEqual([res.status, errorOf(res).error_message], [400, 'Listing not found.']);
    // A block, either way: the blocked side cannot send into the conversation, nor start one.
    const blocked = await s.t.post(`${API}/privacy/user/block`, { user_id: amina }, s.t.auth(youssef));
    assert.equal(blocked.statusCode, 200, blocked.body);
    res = await refusedEarly(MESSAGE, amina, [{ name: 'con_id', body: String(s.conId) }]);
    assert.deepEqual([res.status, JSON.parse(res.body).message], [403, 'You cannot send messages to this user.']);
    res = await refusedEarly(MESSAGE, youssef, [{ name: 'con_id', body: String(s.conId) }]);
    assert.equal(res.status, 403, res.body);
    res = await refusedEarly(START, amina, [{ name: 'listing_id', body: String(LISTINGS.bike) }]);
    assert.equal(res.status, 403, res.body);
    await s.t.app.inject({ method: 'DELETE', url: `${API}/privacy/user/block?user_id=${amina}`, headers: s.t.auth(youssef) });
    // The schema's and the text's refusals too.
    res = await refusedEarly(MESSAGE, amina, [
      { name: 'con_id', body: String(s.conId) },
      { name: 'temp_id', body: 'abc' },
    ]);
    assert.equal(res.status, 400, res.body);
    res = await refusedEarly(MESSAGE, amina, [
      { name: 'con_id', body: String(s.conId) },
      { name: 'text', body: 'a\u0000b' },
    ]);
    assert.equal(res.status, 400, res.body);
    await until(async () => (await s.temporary()).length === 0, 5000);
    assert.deepEqual(await s.stored(), []);
  });

  it('takes the abuse limit place before the files, and gives back what stored nothing', async () => {
    const send = () =>
      s.post(MESSAGE, amina, [
        { name: 'con_id', body: String(s.conId) },
        { name: 'files[]', filename: 'p.png', type: 'image/png', body: photo },
      ]);
    // The start counted one; the refused forms above nothing: two more this minute.
    for (let i = 0; i < 2; i++) assert.equal((await send()).status, 200);
    const res = await refusedEarly(MESSAGE, amina, [{ name: 'con_id', body: String(s.conId) }]);
    assert.equal(res.status, 429, res.body);
    assert.ok(Number(res.headers['retry-after']) >= 1);
  });
});

describe('upload forms: in flight, timed, and cleaned up however they end', async () => {
  const s = s3;
  const photo = await png(300);
  const parts = (conId: number) => [
    { name: 'con_id', body: String(conId) },
    { name: 'files[]', filename: 'p.png', type: 'image/png', body: photo },
  ];
  const half = (conId: number) => {
    const whole = formBody(parts(conId));
    return whole.subarray(0, whole.length - 200);
  };

  it('answers 503 with Retry-After beyond the forms in flight, per user and in all; 408 when a body is too slow', async () => {
    const youssefs = await s.t.start(sara, { listing_id: LISTINGS.bike, text: 'Hi' });
    const other = youssefs.json().con_id as number;
    const first = heldForm(s, MESSAGE, amina, parts(s.conId), half(s.conId));
    await until(async () => (await s.temporary()).length === 1, 5000);
    // A quarter of 2 is 1: Amina's second waits for nothing, refused at once.
    let res = await s.post(MESSAGE, amina, parts(s.conId));
    assert.deepEqual([res.status, errorOf(res).error_message], [503, 'Too many upload forms at once. Please try again shortly.']);
    assert.equal(res.headers['retry-after'], '1');
    const second = heldForm(s, MESSAGE, sara, parts(other), half(other));
    await until(async () => (await s.temporary()).length === 2, 5000);
    res = await s.post(MESSAGE, youssef, parts(s.conId));
    assert.equal(res.status, 503, res.body);
    // Their bodies' time runs out: 408, their temporary files gone, their places free.
    const [late1, late2] = await Promise.all([first.answer, second.answer]);
    for (const late of [late1, late2]) {
      assert.equal(late?.status, 408);
      assert.equal(errorOf(late!).error_message, 'The upload form was not received in time (within 1500 ms).');
    }
    await until(async () => (await s.temporary()).length === 0, 5000);
    res = await s.post(MESSAGE, amina, parts(s.conId));
    assert.equal(res.status, 200, res.body);
  });

  it('leaves no temporary file when the client resets mid-file or a file is refused mid-way', async () => {
    for (let i = 0; i < 3; i++) {
      const held = heldForm(s, MESSAGE, amina, parts(s.conId), half(s.conId));
      await until(async () => (await s.temporary()).length === 1, 5000);
      held.socket.resetAndDestroy();
      await until(async () => (await s.temporary()).length === 0, 5000);
    }
    const res = await s.post(MESSAGE, amina, [
      { name: 'con_id', body: String(s.conId) },
      { name: 'files[]', filename: 'ok.png', type: 'image/png', body: photo },
      { name: 'files[]', filename: 'big.pdf', type: 'application/pdf', body: Buffer.alloc(6 * 1024 * 1024, 1) },
    ]);
    assert.equal(res.status, 413, res.body);
    await until(async () => (await s.temporary()).length === 0, 5000);
  });
});

describe('upload forms: the image queue is bounded', async () => {
  const s = s4;

  it('answers 503 with Retry-After to an image that would wait beyond the queue', async () => {
    const big = await sharp({ create: { width: 6000, height: 6000, channels: 3, background: '#789' } })
      .png()
      .toBuffer();
    const sara1 = (await s.t.start(sara, { listing_id: LISTINGS.bike, text: 'Hi' })).json().con_id as number;
    const sends = [
      [amina, s.conId],
      [sara, sara1],
      [youssef, s.conId],
    ].map(([user, conId]) =>
      s.post(MESSAGE, user!, [
        { name: 'con_id', body: String(conId) },
        { name: 'files[]', filename: 'big.png', type: 'image/png', body: big },
      ]),
    );
    const answers = await Promise.all(sends);
    const statuses = answers.map((r) => r.status).sort();
    assert.ok(statuses.includes(200) && statuses.includes(503), String(statuses));
    const busy = answers.find((r) => r.status === 503)!;
    assert.equal(errorOf(busy).error_message, 'Too many images wait to be processed. Please try again shortly.');
    assert.ok(Number(busy.headers['retry-after']) >= 1);
  });
});

describe('upload forms: the fields together within BODY_LIMIT', async () => {
  const s = s5;

  it('refuses a form whose fields pass BODY_LIMIT, though the text is within its characters', async () => {
    const res = await s.post(MESSAGE, amina, [
      { name: 'con_id', body: String(s.conId) },
      { name: 'text', body: 'é'.repeat(600) },
    ]);
    assert.deepEqual(
      [res.status, errorOf(res)],
      [
        413,
        {
          status: 'error',
          error: 'PAYLOAD_TOO_LARGE',
          code: '413',
          error_message: 'The request body is larger than the limit of 1024 bytes.',
        },
      ],
    );
    const fits = await s.post(MESSAGE, amina, [
      { name: 'con_id', body: String(s.conId) },
      { name: 'text', body: 'é'.repeat(500) },
    ]);
    assert.equal(fits.status, 200, fits.body);
    assert.equal(JSON.parse(fits.body).message, 'é'.repeat(500));
  });
});
