/**
 * Photos and documents in the chat (docs/files.md): the plugin's upload form on POST
 * my/chat/message and POST my/chat/conversation, through a real socket; what is stored, what is
 * refused (with nothing stored), how the files are served back, the orphan sweep. Runs on SQLite,
 * and on PostgreSQL when TEST_DATABASE_URL names one.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, stat, utimes, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { crc32, deflateSync } from 'node:zlib';
import { join } from 'node:path';
import sharp from 'sharp';
import { sql } from 'kysely';
import { deleteMessageFiles, sweepOrphans } from '../../src/domain/files/sweep.js';
import { LocalFolderStorage } from '../../src/store/files/local-folder.js';
import { LISTINGS, SITE_URL, USERS } from '../helpers/fixtures.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';

const API = '/wp-json/rtcl/v1';
const { amina, youssef, sara } = USERS;

/** Every file under the folder, relative, `/`-separated. */
async function filesUnder(root: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true }).catch(() => [])) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await filesUnder(root, rel)));
    else out.push(rel);
  }
  return out.sort();
}

interface Part {
  name: string;
  bytes: Uint8Array;
  type?: string;
  field?: string;
}

function form(fields: Record<string, string>, files: Part[]): FormData {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.append(k, v);
  for (const f of files) data.append(f.field ?? 'files[]', new Blob([f.bytes], { type: f.type ?? 'application/octet-stream' }), f.name);
  return data;
}

async function gpsJpeg(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .withExifMerge({
      IFD0: { Make: 'PhoneMaker' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2964/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 17/1 4020/100' },
    })
    .toBuffer();
}

const png = (size = 64) =>
  sharp({ create: { width: size, height: size, channels: 4, background: '#0a0' } })
    .png()
    .toBuffer();

/** A PDF's bytes: its magic, then filler (the detector reads the head). */
function pdf(size: number): Buffer {
  const head = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1');
  const body = Buffer.alloc(size - head.length);
  for (let i = 0; i < body.length; i++) body[i] = (i * 31 + 7) % 251;
  return Buffer.concat([head, body]);
}

/** A PNG whose header claims width x height pixels, with almost no data: what a decompression bomb shows first. */
function pngBomb(width: number, height: number): Buffer {
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

/** The GPS IFD pointer tag (0x8825), in either byte order. */
const hasGpsTag = (exif: Buffer | undefined) =>
  !!exif && (exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88])));

// One server for the file: started at the top level, so that it closes when the file ends.
const dir = await mkdtemp(join(tmpdir(), 'souk-files-'));
const t: TestSouk = await startTestSouk({ FILES_DIR: dir, FILES_SWEEP_INTERVAL_S: '0' });
const base = await t.listen();
const started = await t.start(amina, { listing_id: LISTINGS.bike, text: 'Hello' });
assert.equal(started.statusCode, 200, started.body);
const conId: number = JSON.parse(started.body).con_id;

describe('files in the chat', () => {
  const send = (as: number, path: string, data: FormData, headers: Record<string, string> = t.auth(as)) =>
    fetch(`${base}${API}/${path}`, { method: 'POST', headers, body: data });
  const local = (url: string) => url.replace(SITE_URL, base);
  const messageCount = async () => {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from messages`.execute(t.souk.store.db);
    return Number(rows[0]!.n);
  };
  const storedFiles = async () => (await filesUnder(dir)).filter((f) => !f.startsWith('.uploads/'));

  it('takes a JPEG: re-encoded upright, without its EXIF and GPS, at most 2048 px, with a thumbnail', async () => {
    const photo = await gpsJpeg(3000, 1000);
    assert.ok(hasGpsTag((await sharp(photo).metadata()).exif), 'the test photo carries a GPS position');
    const res = await send(
      amina,
      'my/chat/message',
      form({ con_id: String(conId), text: 'The bike', temp_id: '7' }, [{ name: '../../home/IMG 1.jpg', bytes: photo, type: 'image/jpeg' }]),
    );
    const body = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.type, 'attachment');
    assert.equal(body.message, 'The bike');
    assert.equal(body.temp_id, '7');
    const [file] = body.attachments;
    assert.deepEqual(Object.keys(file), ['url', 'type', 'mimeType', 'name', 'size', 'thumbnail', 'width', 'height']);
    assert.equal(file.type, 'image');
    assert.equal(file.mimeType, 'image/jpeg');
    assert.equal(file.name, 'IMG 1.jpg');
    assert.match(file.url, /^https:\/\/souk\.example\/files\/chat\/[0-9a-f]{2}\/[0-9a-f]{64}\.jpg$/);
    // Orientation 6: the 3000 x 1000 picture stands up, scaled to 2048 on its long side.
    assert.deepEqual([file.width, file.height], [683, 2048]);

    const served = await fetch(local(file.url));
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/jpeg');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.match(served.headers.get('cache-control') ?? '', /max-age=31536000/);
    assert.equal(served.headers.get('content-disposition'), null);
    const bytes = Buffer.from(await served.arrayBuffer());
    assert.equal(bytes.length, file.size);
    const meta = await sharp(bytes).metadata();
    assert.equal(meta.exif, undefined, 'no EXIF left');
    assert.equal(meta.xmp, undefined, 'no XMP left');
    assert.ok(!hasGpsTag(meta.exif));
    assert.deepEqual([meta.width, meta.height], [683, 2048]);
    assert.ok([undefined, 1].includes(meta.orientation));
    const thumb = await sharp(Buffer.from(await (await fetch(local(file.thumbnail))).arrayBuffer())).metadata();
    assert.ok(Math.max(thumb.width!, thumb.height!) <= 300);

    // The other participant reads it with its attachments; a retry with the same temp_id stores nothing new.
    const read = await t.app.inject({ method: 'GET', url: `${API}/my/chat/conversation?con_id=${conId}`, headers: t.auth(youssef) });
    const row = JSON.parse(read.body).messages[0];
    assert.equal(row.type, 'attachment');
    assert.deepEqual(JSON.parse(row.attachments), [file]);
    const before = await messageCount();
    const again = await send(
      amina,
      'my/chat/message',
      form({ con_id: String(conId), text: 'The bike', temp_id: '7' }, [{ name: 'IMG 1.jpg', bytes: photo }]),
    );
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as any).message_id, body.message_id);
    assert.equal(await messageCount(), before);
  });

  it('refuses a file that is not what it claims, naming it, and stores nothing', async () => {
    const stored = await storedFiles();
    const count = await messageCount();
    const html = Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>');
    const res = await send(
      amina,
      'my/chat/message',
      form({ con_id: String(conId), text: 'look' }, [
        { name: 'ok.png', bytes: await png(), type: 'image/png' },
        { name: 'photo.jpg', bytes: html, type: 'image/jpeg' },
      ]),
    );
    assert.equal(res.status, 400);
    const body = (await res.json()) as any;
    assert.equal(body.error, 'BADREQUEST');
    assert.match(body.error_message, /"photo\.jpg"/);
    assert.equal(await messageCount(), count);
    assert.deepEqual(await storedFiles(), stored);
  });

  it('refuses a decompression bomb from its header, without decoding it', async () => {
    const res = await send(
      amina,
      'my/chat/message',
      form({ con_id: String(conId), text: 'bomb' }, [{ name: 'bomb.png', bytes: pngBomb(50_000, 50_000) }]),
    );
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as any).error_message, /"bomb\.png" refused: the image has more pixels than accepted/);
  });

  it('refuses a 6 MB file with 413 and stores nothing', async () => {
    const stored = await storedFiles();
    const count = await messageCount();
    const res = await send(
      amina,
      'my/chat/message',
      form({ con_id: String(conId), text: 'big' }, [{ name: 'big.pdf', bytes: pdf(6 * 1024 * 1024) }]),
    );
    assert.equal(res.status, 413);
    const body = (await res.json()) as any;
    assert.equal(body.code, '413');
    assert.match(body.error_message, /"big\.pdf"/);
    assert.equal(await messageCount(), count);
    assert.deepEqual(await storedFiles(), stored);
    // The temporary file is gone once the reply is sent.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(
      (await filesUnder(dir)).filter((f) => f.startsWith('.uploads/')),
      [],
    );
  });

  it('takes 4 files and refuses 5', async () => {
    const images = await Promise.all([1, 2, 3, 4, 5].map((i) => png(16 + i)));
    const four = await send(
      amina,
      'my/chat/message',
      form(
        { con_id: String(conId), text: '' },
        images.slice(0, 4).map((bytes, i) => ({ name: `p${i}.png`, bytes, field: i % 2 ? 'files' : 'files[]' })),
      ),
    );
    assert.equal(four.status, 200);
    assert.equal(((await four.json()) as any).attachments.length, 4);
    const count = await messageCount();
    const five = await send(
      amina,
      'my/chat/message',
      form(
        { con_id: String(conId), text: 'five' },
        images.map((bytes, i) => ({ name: `q${i}.png`, bytes })),
      ),
    );
    assert.equal(five.status, 400);
    assert.match(((await five.json()) as any).error_message, /at most 4/);
    assert.equal(await messageCount(), count);
  });

  it('starts a conversation with a PNG and no text field at all', async () => {
    const res = await send(
      sara,
      'my/chat/conversation',
      form({ listing_id: String(LISTINGS.bike) }, [{ name: 'item.png', bytes: await png(40) }]),
    );
    const body = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.newMessage.type, 'attachment');
    assert.equal(body.newMessage.message, '');
    assert.equal(body.newMessage.attachments[0].mimeType, 'image/png');
    // Its stored file is recorded with it (on PostgreSQL the start writes both in one statement).
    const digest = /[0-9a-f]{64}/.exec(body.newMessage.attachments[0].url)![0];
    assert.equal(await t.souk.store.fileReferences.isReferenced(digest), true);
  });

  it('serves a document back byte for byte, as a download, and a byte range of it', async () => {
    const doc = pdf(200_000);
    const res = await send(
      youssef,
      'my/chat/message',
      form({ con_id: String(conId), text: 'the invoice' }, [{ name: 'invoice.pdf', bytes: doc, type: 'application/pdf' }]),
    );
    const body = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(body));
    const [file] = body.attachments;
    assert.deepEqual(file, { url: file.url, type: 'file', mimeType: 'application/pdf', name: 'invoice.pdf', size: doc.length });
    const served = await fetch(local(file.url));
    assert.equal(served.headers.get('content-type'), 'application/pdf');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.match(served.headers.get('content-disposition') ?? '', /^attachment/);
    assert.ok(Buffer.from(await served.arrayBuffer()).equals(doc));
    const range = await fetch(local(file.url), { headers: { range: 'bytes=1000-1999' } });
    assert.equal(range.status, 206);
    assert.equal(range.headers.get('content-range'), `bytes 1000-1999/${doc.length}`);
    assert.ok(Buffer.from(await range.arrayBuffer()).equals(doc.subarray(1000, 2000)));
    const tail = await fetch(local(file.url), { headers: { range: 'bytes=-10' } });
    assert.ok(Buffer.from(await tail.arrayBuffer()).equals(doc.subarray(doc.length - 10)));
    assert.equal((await fetch(local(file.url), { headers: { range: `bytes=${doc.length}-` } })).status, 416);
    assert.equal((await fetch(`${base}/files/chat/00/nothing.pdf`)).status, 404);
    assert.equal((await fetch(`${base}/files/..%2F..%2Fetc%2Fpasswd`)).status, 404);
  });

  it('reads no body before the caller is authenticated, and keeps the JSON form', async () => {
    const res = await send(
      amina,
      'my/chat/message',
      form({ con_id: String(conId), text: 'x' }, [{ name: 'a.png', bytes: await png() }]),
      {},
    );
    assert.equal(res.status, 401);
    const json = await t.post(
      `${API}/my/chat/message`,
      { con_id: conId, text: '', files: [{ url: 'https://cdn.example/x.jpg', name: 'x.jpg' }] },
      t.auth(amina),
    );
    assert.equal(json.statusCode, 200, json.body);
    assert.deepEqual(JSON.parse(json.body).attachments, [{ url: 'https://cdn.example/x.jpg', name: 'x.jpg' }]);
  });

  it("sweeps the files no message names once old enough, and deletes a deleted message's files", async () => {
    const files = new LocalFolderStorage(dir, `${SITE_URL}/files`);
    const refs = t.souk.store.fileReferences;
    const orphan = `chat/ab/${'ab'.repeat(32)}.pdf`;
    await files.put(orphan, Buffer.from('%PDF-1.4 orphan'), 'application/pdf');
    await mkdir(join(dir, '.uploads'), { recursive: true });
    await writeFile(join(dir, '.uploads', 'leftover'), 'half an upload');
    const kept = await storedFiles();
    // Young files stay.
    assert.equal((await sweepOrphans(files, refs, Date.now(), 60_000)).removed, 0);
    const old = new Date(Date.now() - 120_000);
    for (const f of await filesUnder(dir)) await utimes(join(dir, f), old, old);
    const result = await sweepOrphans(files, refs, Date.now(), 60_000);
    assert.equal(result.removed, 2);
    assert.deepEqual(
      await storedFiles(),
      kept.filter((f) => f !== orphan),
    );
    assert.deepEqual(
      (await filesUnder(dir)).filter((f) => f.startsWith('.uploads/')),
      [],
    );

    // A message's files, once the message is gone (as `souk messages delete` does).
    const res = await send(
      amina,
      'my/chat/message',
      form({ con_id: String(conId), text: '' }, [{ name: 'gone.png', bytes: await png(77) }]),
    );
    const message = (await res.json()) as any;
    await sql`delete from messages where id = ${message.message_id}`.execute(t.souk.store.db);
    const before = await storedFiles();
    assert.equal(await deleteMessageFiles(files, refs, message.attachments), 2);
    const after = await storedFiles();
    assert.equal(before.length - after.length, 2);
    await stat(join(dir, 'chat')).catch(() => assert.fail('the folder stays'));
  });
});

describe("only Souk's own files are swept or deleted", () => {
  const files = new LocalFolderStorage(dir, `${SITE_URL}/files`);
  const refs = t.souk.store.fileReferences;
  const send = (as: number, data: FormData) => fetch(`${base}${API}/my/chat/message`, { method: 'POST', headers: t.auth(as), body: data });
  const exists = (key: string) =>
    stat(join(dir, key)).then(
      () => true,
      () => false,
    );
  const age = async (keys: string[]) => {
    const old = new Date(Date.now() - 3_600_000);
    for (const key of keys) await utimes(join(dir, key), old, old);
  };

  it("leaves a WordPress site's uploads and every name not of Souk's shape, and still removes Souk's orphans", async () => {
    const digest = 'ef'.repeat(32);
    const theirs = [
      '2024/05/photo.jpg',
      'chat/readme.txt',
      'chat/ab/not-a-digest.jpg',
      `chat/ab/${digest}.jpg`, // the digest's first two hex are not the folder's
      `chat/ef/${digest}.exe`, // not an extension Souk writes
      `chat/ef/${digest}-large.jpg`,
      'chat/ef/.tmp-notsouks', // not the temporary name Souk writes
      'uploads/0123abcd',
      'backups/db.sql',
    ];
    const ours = [
      `chat/ef/${digest}.jpg`,
      `chat/ef/${digest}-thumb.jpg`,
      'chat/ef/.tmp-0123456789abcdef',
      '.uploads/0123abcd',
      '.uploads/request/part',
    ];
    for (const key of [...theirs, ...ours]) {
      await mkdir(join(dir, key, '..'), { recursive: true });
      await writeFile(join(dir, key), `bytes of ${key}`);
    }
    await age([...theirs, ...ours]);
    const result = await sweepOrphans(files, refs, Date.now(), 60_000);
    assert.ok(result.removed >= ours.length, JSON.stringify(result));
    for (const key of theirs) assert.ok(await exists(key), `${key} stays`);
    for (const key of ours) assert.ok(!(await exists(key)), `${key} is swept`);
    // Deleting through the storage refuses what is not Souk's, whatever asks.
    await assert.rejects(files.delete('2024/05/photo.jpg'), /not a key of Souk's/);
    assert.ok(await exists('2024/05/photo.jpg'));
  });

  it("deletes a message's uploaded files only, never a file the message names (D6)", async () => {
    const data = new FormData();
    data.append('con_id', String(conId));
    data.append('text', "the seller's photo");
    data.append('files[]', new Blob([await png(91)], { type: 'image/png' }), 'seller.png');
    const res = await send(youssef, data);
    const upload = ((await res.json()) as any).attachments[0];
    assert.equal(res.status, 200);
    const key = upload.url.slice(`${SITE_URL}/files/`.length);
    await writeFile(join(dir, '2024', '05', 'listing.jpg'), 'a listing photo');
    const named = [
      { url: upload.url, name: 'seller.png' },
      { url: upload.thumbnail, name: 'thumb.png', mime_type: 'image/png' },
      { url: `${SITE_URL}/files/2024/05/listing.jpg`, name: 'listing.jpg' },
    ];
    // As a message stored before Souk refused such names would hold them, once it is deleted.
    assert.equal(await deleteMessageFiles(files, refs, named), 0);
    assert.ok(await exists(key), 'the upload stays');
    assert.ok(await exists('2024/05/listing.jpg'), "the site's photo stays");
  });

  it("refuses a named file under Souk's files address however it is spelled, and takes one elsewhere under it", async () => {
    const data = new FormData();
    data.append('con_id', String(conId));
    data.append('files[]', new Blob([await png(92)], { type: 'image/png' }), 'mine.png');
    const upload = ((await (await send(youssef, data)).json()) as any).attachments[0];
    const path = new URL(upload.url).pathname;
    const spellings = [
      upload.url,
      upload.thumbnail,
      upload.url.replace('https://souk.example', 'HTTPS://SOUK.EXAMPLE:443'),
      upload.url.replace('https://', 'http://'),
      upload.url.replace('/files/chat/', '/files/./chat/'),
      upload.url.replace('/files/chat/', '/files/x/../chat/'),
      upload.url.replace('/files/chat/', '/files/%63hat/'),
      upload.url.replace('/files/chat/', '/files//chat/'),
      upload.url.replace('/files/chat/', '/files/x%2F..%2Fchat/'),
      upload.url.replace('/files/chat/', '/files/%3F%2F..%2F..%2Ffiles%2Fchat/'),
      `${upload.url}?expires=1&signature=x`,
      `https://souk.example/files/chat/aa/${'aa'.repeat(32)}.jpg`,
    ];
    for (const url of spellings) {
      const res = await t.post(`${API}/my/chat/message`, { con_id: conId, text: 'look', files: [{ url }] }, t.auth(amina));
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.deepEqual(JSON.parse(res.body), {
        status: 'error',
        error: 'BADREQUEST',
        code: '400',
        error_message: 'files[].url must not name a file uploaded to the chat: send the file itself in files[] of a multipart form.',
      });
    }
    const started = await t.post(
      `${API}/my/chat/conversation`,
      { listing_id: LISTINGS.bike, text: 'look', files: [{ url: upload.url }] },
      t.auth(sara),
    );
    assert.equal(started.statusCode, 400, started.body);
    for (const url of [`${SITE_URL}/files/2024/05/listing.jpg`, `https://cdn.example${path}`]) {
      const res = await t.post(`${API}/my/chat/message`, { con_id: conId, text: 'look', files: [{ url }] }, t.auth(amina));
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    }
  });

  it('keeps public files readable by all: 0644 in 0755 folders', async () => {
    const data = new FormData();
    data.append('con_id', String(conId));
    data.append('files[]', new Blob([await png(93)], { type: 'image/png' }), 'modes.png');
    const upload = ((await (await send(amina, data)).json()) as any).attachments[0];
    const key: string = upload.url.slice(`${SITE_URL}/files/`.length);
    const mode = async (path: string) => (await stat(join(dir, path))).mode & 0o777;
    assert.equal(await mode(key), 0o644);
    assert.equal(await mode(key.split('/').slice(0, 2).join('/')), 0o755);
    assert.equal(await mode('chat'), 0o755);
  });
});
