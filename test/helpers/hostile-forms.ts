/**
 * Hostile upload forms, property-based (fast-check), over a real socket, for the hostile-input
 * suites of each database (test/http/hostile-uploads.test.ts, test/store/mysql/hostile-uploads.test.ts):
 * unknown, repeated and oversized fields, typed (JSON) parts nested deep, many and slow parts,
 * lying lengths, resets mid-way, pixel and decompression bombs, files that are not what they
 * claim, hostile file names. Every answer is a 2xx or a documented error shape, never a 5xx or a
 * hang; afterwards no temporary file is left, every stored file is named by a message, and the
 * server still serves.
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import fc from 'fast-check';
import sharp from 'sharp';
import type { TestSouk } from './souk.js';
import { FORM_TYPE, formPart, BOUNDARY, type FormPart } from './multipart.js';
import { propertySeed } from './property.js';
import { httpRequest, rawRequest, type RawResponse } from './raw-http.js';
import { until } from './until.js';

/** The server's settings the suite expects: small files and images, a short body timeout. */
export const HOSTILE_FORM_ENV = {
  FILES_MAX_BYTES: '65536',
  FILES_IMAGE_MAX_PIXELS: '1000000',
  FILES_UPLOAD_TIMEOUT_MS: '1500',
  FILES_SWEEP_INTERVAL_S: '0',
  RATE_LIMIT_PER_USER: '0',
};

export interface HostileFormTarget {
  t: TestSouk;
  port: number;
  filesDir: string;
  /** Headers of a signed-in call for the user. */
  auth(user: number): [string, string][];
  /** Users who may send, one conversation of two of them, listings to start about. */
  users: number[];
  conversation: number;
  listings: number[];
  /** Every uploaded file's address that a stored message names. */
  namedFiles(): Promise<Set<string>>;
  filesUrl: string;
}

const SCALE = Number(process.env.HOSTILE_SCALE ?? 1);

async function filesUnder(root: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true }).catch(() => [])) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await filesUnder(root, rel)));
    else out.push(rel);
  }
  return out.sort();
}

/** A PNG whose header claims width x height pixels, with almost no data. */
function pngClaiming(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.alloc(1024))), chunk('IEND', Buffer.alloc(0))]);
}

const documentedShape = (body: unknown) => {
  const keys = Object.keys(body as object).join(',');
  return ['code,message', 'status,error,code,error_message', 'code,message,data'].includes(keys);
};

export async function hostileUploadForms(
  target: HostileFormTarget,
  it: (name: string, fn: (ctx: { diagnostic(message: string): void }) => Promise<void>) => unknown,
) {
  const { port } = target;
  const seed = propertySeed();
  const small = await sharp({ create: { width: 24, height: 16, channels: 3, background: '#a33' } })
    .jpeg()
    .toBuffer();
  // A real image: tiny on the wire, 4 megapixels decoded (the server takes 1).
  const decompressionBomb = await sharp({ create: { width: 2000, height: 2000, channels: 3, background: '#000' } })
    .png({ compressionLevel: 9 })
    .toBuffer();
  const fileBodies = fc.constantFrom(
    small,
    small.subarray(0, small.length / 2),
    pngClaiming(50_000, 50_000),
    decompressionBomb,
    Buffer.from('<!doctype html><script>alert(1)</script>'),
    Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'),
    Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1'),
    Buffer.alloc(70_000, 7),
    Buffer.alloc(0),
  );
  const hostileName = fc.oneof(
    fc.constantFrom(
      'photo.jpg',
      '../../etc/passwd',
      '..\\..\\boot.ini',
      '',
      ' ',
      'a\u202egpj.exe',
      '<img src=x onerror=alert(1)>.jpg',
      'x'.repeat(400),
      'percent%22quote.png',
      '\u0000.png',
      'semi;colon=.png',
    ),
    fc.string({ maxLength: 30 }).filter((s) => !/["\r\n]/.test(s)),
  );
  const fieldName = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('con_id', 'listing_id', 'text', 'temp_id') },
    { weight: 1, arbitrary: fc.constantFrom('files[]', 'files', 'extra', '__proto__', 'constructor', '', 'text[]') },
  );
  const fieldValue = fc.oneof(
    { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 2, arbitrary: fc.constantFrom(...target.listings.map(String), String(target.conversation), '7', '-3', '') },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 300_000 }).map((n) => 'é'.repeat(n / 2)) },
  );
  const field = fc.record({
    name: fieldName,
    body: fieldValue,
    type: fc.option(fc.constantFrom('application/json', 'text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded'), {
      nil: undefined,
    }),
  });
  const deepJson = fc
    .integer({ min: 1, max: 50_000 })
    .map((depth) => ({ name: 'text', type: 'application/json', body: `${'['.repeat(depth)}${']'.repeat(depth)}` }));
  const file = fc.record({
    name: fc.constantFrom('files[]', 'files[]', 'files', 'photo'),
    filename: hostileName,
    type: fc.option(fc.constantFrom('image/jpeg', 'image/png', 'application/pdf', 'text/html', 'image/svg+xml'), { nil: undefined }),
    body: fileBodies,
  });
  const anyForm = fc.tuple(
    fc.array(fc.oneof({ weight: 5, arbitrary: field }, { weight: 1, arbitrary: deepJson }), { maxLength: 6 }),
    fc.array(file, { maxLength: 6 }),
    fc.boolean(),
  );
  // A form a route takes but for its files: their names, types and bytes are the hostile part.
  const wellFormed = fc
    .tuple(
      fc.boolean(),
      fc.constantFrom(...target.listings),
      fc.string({ maxLength: 20 }),
      fc.array(
        fc.tuple(file, fc.constantFrom(true, true, true, false)).map(([f, valid]) => (valid ? { ...f, body: small } : f)),
        { minLength: 1, maxLength: 3 },
      ),
    )
    .map(([answer, listing, text, files]): [FormPart[], FormPart[], boolean] => [
      [
        answer ? { name: 'con_id', body: String(target.conversation) } : { name: 'listing_id', body: String(listing) },
        { name: 'text', body: text },
      ],
      files.map((f) => ({ ...f, name: 'files[]' })),
      false,
    ]);
  const form = fc.oneof(anyForm, wellFormed);
  const framing = fc.constantFrom('exact', 'exact', 'exact', 'slow', 'shorter', 'longer', 'reset', 'chunked');

  const send = async (path: string, user: number, body: Buffer, how: string): Promise<RawResponse | undefined> => {
    const headers: [string, string][] = [...target.auth(user), ['Content-Type', FORM_TYPE]];
    let pieces: Buffer[] = [body];
    if (how === 'chunked') {
      headers.push(['Transfer-Encoding', 'chunked']);
      pieces = [Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')])];
    } else if (how === 'shorter') headers.push(['Content-Length', String(Math.max(0, body.length - 10))]);
    else if (how === 'longer') headers.push(['Content-Length', String(body.length + 10)]);
    else headers.push(['Content-Length', String(body.length)]);
    if (how === 'slow') {
      const size = Math.ceil(body.length / 4);
      pieces = [0, 1, 2, 3].map((i) => body.subarray(i * size, (i + 1) * size));
    }
    if (how === 'reset') {
      const res = await rawRequest(port, httpRequest('POST', path, headers, body.subarray(0, body.length / 2)), { timeoutMs: 150 });
      return res.response;
    }
    const [first, ...rest] = pieces;
    const res = await rawRequest(port, [httpRequest('POST', path, headers, first!), ...rest], {
      untilComplete: true,
      timeoutMs: 15_000,
      pauseMs: how === 'slow' ? 100 : 0,
    });
    assert.ok(res.response, `no answer (${res.error ?? 'closed'}) to a ${how} form`);
    return res.response;
  };

  const statuses = new Map<number, number>();
  it('multipart forms: unknown, repeated, oversized and typed fields, bombs, hostile names, slow parts, lying lengths, resets', async (ctx) => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('message', 'start'),
        fc.constantFrom(...target.users),
        form,
        framing,
        async (route, user, [fields, files, filesFirst], how) => {
          const parts: FormPart[] = filesFirst ? [...files, ...fields] : [...fields, ...files];
          const body = Buffer.concat([...parts.map((p) => formPart(p)), Buffer.from(`--${BOUNDARY}--\r\n`)]);
          const path = route === 'message' ? `/wp-json/rtcl/v1/my/chat/message` : `/wp-json/rtcl/v1/my/chat/conversation`;
          const res = await send(path, user, body, how);
          statuses.set(res?.status ?? 0, (statuses.get(res?.status ?? 0) ?? 0) + 1);
          if (!res) return;
          const where = `${how} ${route}: ${JSON.stringify(parts.map((p) => [p.name, p.filename, p.type, String(p.body).slice(0, 40)]))}\n-> ${res.status} ${res.body.slice(0, 300)}`;
          assert.ok(res.status < 500 || res.status === 503, `server error: ${where}`);
          if (res.status === 503) assert.match(res.body, /Too many (images|upload forms)/, where);
          const parsed = JSON.parse(res.body) as Record<string, unknown>;
          if (res.status === 200) assert.ok(route === 'message' ? 'message_id' in parsed : 'con_id' in parsed, where);
          else assert.ok(documentedShape(parsed), `undocumented answer: ${where}`);
        },
      ),
      { numRuns: Math.max(1, Math.round(150 * SCALE)), seed, endOnFailure: true },
    );
    ctx.diagnostic(`answers by status (0: none, the client reset): ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  });

  it('leaves no temporary file, stores no file a message does not name, and still serves', async () => {
    await until(async () => (await filesUnder(target.filesDir)).every((f) => !f.startsWith('.uploads/')), 10_000);
    const named = await target.namedFiles();
    const stored = (await filesUnder(target.filesDir)).filter((f) => f.startsWith('chat/'));
    for (const key of stored) assert.ok(named.has(`${target.filesUrl}/${key}`), `${key} stored with no message naming it`);
    const res = await rawRequest(
      port,
      httpRequest(
        'POST',
        `/wp-json/rtcl/v1/my/chat/message`,
        [...target.auth(target.users[0]!), ['Content-Type', 'application/json'], ['Content-Length', '0']],
        '',
      ),
      { untilComplete: true },
    );
    assert.ok(res.response && res.response.status === 400, res.response?.body);
  });
}
