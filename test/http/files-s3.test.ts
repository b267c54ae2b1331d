/**
 * Chat files in an S3-compatible bucket (FILES_S3_URL, docs/files-s3.md), end to end: a photo and a
 * PDF sent with a message through a real socket land in the bucket (fauxqs, in this process), and
 * Souk serves them back from it at FILES_URL, whole and by range; the orphan sweep works on the
 * bucket; a bucket that cannot be used stops the start. On SQLite, and on PostgreSQL when
 * TEST_DATABASE_URL names one.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startFauxqs } from 'fauxqs';
import sharp from 'sharp';
import { loadConfig, parseS3Url } from '../../src/config.js';
import { sweepOrphans } from '../../src/domain/files/sweep.js';
import { S3Storage } from '../../src/store/files/s3.js';
import { createSouk } from '../../src/server.js';
import { LISTINGS, SITE_URL, USERS } from '../helpers/fixtures.js';
import { startTestSouk } from '../helpers/souk.js';

const API = '/wp-json/rtcl/v1';
const BUCKET = 'souk-chat';
const SECRET = 'souk-e2e-secret-never-shown';
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const server = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false });
after(() => server.stop());
server.createBucket(BUCKET);
const s3Url = `s3://souk:${SECRET}@127.0.0.1:${server.port}/${BUCKET}/marketplace?tls=false`;
const bucketClient = () =>
  new S3Client({
    endpoint: `http://127.0.0.1:${server.port}`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'souk', secretAccessKey: SECRET },
  });
const bucketKeys = async () => {
  const client = bucketClient();
  try {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    return (listed.Contents ?? []).map((o) => o.Key!).sort();
  } finally {
    client.destroy();
  }
};

const t = await startTestSouk({ FILES_S3_URL: s3Url, FILES_SWEEP_INTERVAL_S: '0' });
const base = await t.listen();

describe('chat files in an S3 bucket', () => {
  it('stores what a message carries in the bucket and serves it back from there', async () => {
    const started = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' });
    assert.equal(started.statusCode, 200, started.body);
    const photo = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#c33' } })
      .jpeg()
      .toBuffer();
    const head = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1');
    const pdf = Buffer.concat([head, Buffer.alloc(200_000, 7)]);
    const form = new FormData();
    form.append('con_id', String(started.json().con_id));
    form.append('text', 'Photo and invoice');
    form.append('files[]', new Blob([photo], { type: 'image/jpeg' }), 'bike.jpg');
    form.append('files[]', new Blob([pdf], { type: 'application/pdf' }), 'invoice.pdf');
    const res = await fetch(`${base}${API}/my/chat/message`, { method: 'POST', headers: t.auth(USERS.amina), body: form });
    const body = (await res.json()) as { attachments: Array<{ url: string; type: string; size: number; thumbnail?: string }> };
    assert.equal(res.status, 200, JSON.stringify(body));
    const [image, document] = body.attachments;
    assert.equal(image!.type, 'image');
    assert.equal(document!.type, 'file');
    for (const file of body.attachments) assert.ok(file.url.startsWith(`${SITE_URL}/files/chat/`), file.url);

    // In the bucket, under the URL's prefix: the photo, its thumbnail and the PDF, nothing else.
    const keys = await bucketKeys();
    const key = (url: string) => `marketplace/${url.slice(`${SITE_URL}/files/`.length)}`;
    assert.deepEqual(keys, [key(image!.url), key(image!.thumbnail!), key(document!.url)].sort());

    // Souk serves them from the bucket: the PDF byte for byte, and a range of it (a PDF reader's).
    const local = (url: string) => url.replace(SITE_URL, base);
    const whole = await fetch(local(document!.url));
    assert.equal(whole.status, 200);
    assert.equal(whole.headers.get('content-type'), 'application/pdf');
    assert.equal(whole.headers.get('x-content-type-options'), 'nosniff');
    assert.match(whole.headers.get('content-disposition') ?? '', /^attachment/);
    assert.equal(sha(new Uint8Array(await whole.arrayBuffer())), sha(pdf));
    const ranged = await fetch(local(document!.url), { headers: { range: 'bytes=0-8' } });
    assert.equal(ranged.status, 206);
    assert.equal(ranged.headers.get('content-range'), `bytes 0-8/${pdf.length}`);
    assert.equal(await ranged.text(), '%PDF-1.4\n');
    const served = Buffer.from(await (await fetch(local(image!.url))).arrayBuffer());
    assert.equal(served.length, image!.size);
    assert.equal((await sharp(served).metadata()).format, 'jpeg');
  });

  it("sweeps only Souk's orphans: the bucket's other objects stay, even under its prefix, however old", async () => {
    const digest = 'ef'.repeat(32);
    const theirs = [
      'backups/db.sql',
      'marketplace/backups/db.sql',
      'marketplace/chat/readme.txt',
      'marketplace/chat/ab/not-a-digest.jpg',
      `marketplace/chat/ab/${digest}.jpg`,
    ];
    const ours = [`marketplace/chat/ef/${digest}.jpg`, `marketplace/chat/ef/${digest}-thumb.jpg`];
    const client = bucketClient();
    try {
      for (const Key of [...theirs, ...ours]) await client.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: `bytes of ${Key}` }));
    } finally {
      client.destroy();
    }
    const before = await bucketKeys();
    const storage = new S3Storage(parseS3Url(s3Url), `${SITE_URL}/files`);
    try {
      // A day later, everything is past the grace period: what messages name stays too.
      const result = await sweepOrphans(storage, t.souk.store.fileReferences, Date.now() + 2 * 86_400_000, 86_400_000);
      assert.equal(result.removed, ours.length, JSON.stringify(result));
    } finally {
      storage.close();
    }
    assert.deepEqual(
      await bucketKeys(),
      before.filter((key) => !ours.includes(key)),
    );
  });

  it("sweeps the uploads' leftovers in FILES_DIR too, where they wait on each machine", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'souk-s3-uploads-'));
    const leftover = join(dir, '.uploads', '0123abcd');
    await mkdir(join(dir, '.uploads'), { recursive: true });
    await writeFile(leftover, 'half an upload');
    const old = new Date(Date.now() - 60_000);
    await utimes(leftover, old, old);
    const sweeping = await startTestSouk({
      FILES_S3_URL: s3Url.replace('/marketplace?', '/elsewhere?'),
      FILES_DIR: dir,
      FILES_SWEEP_INTERVAL_S: '1',
      FILES_SWEEP_GRACE_S: '1',
    });
    try {
      for (let i = 0; i < 100 && existsSync(leftover); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(!existsSync(leftover), 'the leftover is swept');
    } finally {
      await sweeping.close();
    }
  });

  it('does not start on a bucket that cannot be used, and names it without the secret', async () => {
    const config = loadConfig({
      DATABASE_URL: 'sqlite::memory:',
      LOG_LEVEL: 'silent',
      FILES_S3_URL: `s3://souk:${SECRET}@127.0.0.1:${server.port}/no-such-bucket?tls=false`,
    });
    await assert.rejects(createSouk(config), (err: Error) => {
      assert.match(err.message, /FILES_S3_URL: the bucket no-such-bucket at http:\/\/127\.0\.0\.1:\d+ cannot be used/);
      assert.ok(!err.message.includes(SECRET));
      return true;
    });
  });
});
