/**
 * The S3 FileStorage (src/store/files/s3.ts) through the real AWS SDK against fauxqs, an
 * S3-compatible server in this process (docs/files-s3.md says what it does not check: signatures
 * above all). Every operation of the port: put (a buffer, a file, a stream of unknown length as a
 * multipart upload), get whole and ranged, delete, list, addresses; the bucket's own address serves
 * what was put.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { startFauxqs, type FauxqsServer } from 'fauxqs';
import { effectiveSettings, loadConfig, parseS3Url } from '../../../src/config.js';
import { S3Storage } from '../../../src/store/files/s3.js';

const BUCKET = 'souk-files';
const SECRET = 'souk-test-secret-never-shown';
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** A key of Souk's shape (chat/<2 hex>/<sha-256>.<ext>): the only kind the storage deletes. */
const DOC = `chat/cd/${'cd'.repeat(32)}.pdf`;

let server: FauxqsServer;
let storage: S3Storage;
let bucketAddress: string;
const folder = mkdtempSync(join(tmpdir(), 'souk-s3-'));

before(async () => {
  server = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false });
  server.createBucket(BUCKET);
  const endpoint = `127.0.0.1:${server.port}`;
  bucketAddress = `http://${endpoint}/${BUCKET}/chat-files`;
  const bucket = parseS3Url(`s3://souk:${SECRET}@${endpoint}/${BUCKET}/chat-files?tls=false&region=eu-west-1`);
  // The bucket's own address serves the keys (FILES_S3_PUBLIC_URL), as a public bucket or a CDN would.
  storage = new S3Storage(bucket, bucketAddress);
});

after(async () => {
  storage?.close();
  await server?.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('S3 FileStorage (fauxqs)', () => {
  it('puts, gets whole and by range, lists, deletes, through the port', async () => {
    await storage.check();
    const photo = randomBytes(70_000);
    await storage.put('chat/ab/photo.jpg', photo, 'image/jpeg');

    const whole = await storage.get('chat/ab/photo.jpg');
    assert.ok(whole);
    assert.equal(whole.size, photo.length);
    assert.equal(whole.contentType, 'image/jpeg');
    assert.equal(sha(await buffer(whole.body)), sha(photo));

    const part = await storage.get('chat/ab/photo.jpg', { start: 1000, end: 1999 });
    assert.ok(part);
    assert.equal(part.size, photo.length, 'the whole size, whatever the range');
    assert.deepEqual(await buffer(part.body), photo.subarray(1000, 2000));
    const last = await storage.get('chat/ab/photo.jpg', { start: photo.length - 1, end: photo.length + 99 });
    assert.deepEqual(await buffer(last!.body), photo.subarray(photo.length - 1));
    const past = await storage.get('chat/ab/photo.jpg', { start: photo.length + 10, end: photo.length + 20 });
    assert.ok(past);
    assert.equal(past.size, photo.length);
    assert.equal((await buffer(past.body)).length, 0, 'a range past the end reads nothing');

    assert.equal(await storage.get('chat/ab/missing.jpg'), undefined);
    assert.equal(await storage.get('../chat/ab/photo.jpg'), undefined, 'not a key');
    await assert.rejects(storage.put('chat/../x', photo, 'image/jpeg'), /not a storage key/);

    // A document from an upload's temporary file: one streamed PUT of known length.
    const document = randomBytes(300_000);
    const path = join(folder, 'upload.pdf');
    writeFileSync(path, document);
    await storage.put(DOC, createReadStream(path), 'application/pdf');
    const stored = await storage.get(DOC);
    assert.equal(stored!.size, document.length);
    assert.equal(sha(await buffer(stored!.body)), sha(document));

    // A stream of unknown length larger than a part: a multipart upload.
    const big = randomBytes(6 * 1024 * 1024 + 123);
    const chunks = Array.from({ length: Math.ceil(big.length / 65_536) }, (_, i) => big.subarray(i * 65_536, (i + 1) * 65_536));
    await storage.put('chat/ef/big.pdf', Readable.from(chunks), 'application/pdf');
    const bigStored = await storage.get('chat/ef/big.pdf', { start: 5 * 1024 * 1024 - 10, end: 5 * 1024 * 1024 + 9 });
    assert.equal(bigStored!.size, big.length);
    assert.deepEqual(await buffer(bigStored!.body), big.subarray(5 * 1024 * 1024 - 10, 5 * 1024 * 1024 + 10), 'across the parts');

    // Writing a key again is harmless (same name, same bytes).
    await storage.put('chat/ab/photo.jpg', photo, 'image/jpeg');

    // An object outside the prefix is not this storage's.
    await storage.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'elsewhere/x.txt', Body: 'x' }));
    const listed = [];
    for await (const key of storage.list()) listed.push(key);
    assert.deepEqual(listed.map((k) => k.key).sort(), ['chat/ab/photo.jpg', DOC, 'chat/ef/big.pdf'].sort());
    assert.equal(listed.find((k) => k.key === DOC)!.size, document.length);
    for (const k of listed) assert.ok(Math.abs(k.modifiedAt - Date.now()) < 600_000, `${k.key} modifiedAt`);

    await storage.delete(DOC);
    await storage.delete(DOC);
    assert.equal(await storage.get(DOC), undefined);
  });

  it("serves a stored file at the bucket's address, whole and by range", async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(50_000)]);
    await storage.put('chat/12/report.pdf', pdf, 'application/pdf');
    const url = storage.url('chat/12/report.pdf');
    assert.equal(url, `${bucketAddress}/chat/12/report.pdf`);
    assert.equal(storage.keyOf(url), 'chat/12/report.pdf');
    assert.equal(storage.keyOf('https://elsewhere.example/chat/12/report.pdf'), undefined);
    assert.equal(storage.keyOf(`${bucketAddress}/../secret`), undefined);

    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.equal(sha(Buffer.from(await res.arrayBuffer())), sha(pdf));
    const ranged = await fetch(url, { headers: { range: 'bytes=0-8' } });
    assert.equal(ranged.status, 206);
    assert.equal(await ranged.text(), '%PDF-1.4\n');
  });

  it('with checksums=when_required, sends plain bodies (for servers without flexible checksums)', async () => {
    const plain = new S3Storage(
      parseS3Url(`s3://souk:${SECRET}@127.0.0.1:${server.port}/${BUCKET}/chat-files?tls=false&checksums=when_required`),
      bucketAddress,
    );
    try {
      const document = randomBytes(100_000);
      const path = join(folder, 'plain.pdf');
      writeFileSync(path, document);
      await plain.put('chat/34/plain.pdf', createReadStream(path), 'application/pdf');
      assert.equal(sha(await buffer((await storage.get('chat/34/plain.pdf'))!.body)), sha(document));
    } finally {
      plain.close();
    }
  });

  it('names a bucket that cannot be used, never the secret', async () => {
    const wrong = new S3Storage(parseS3Url(`s3://souk:${SECRET}@127.0.0.1:${server.port}/no-such-bucket?tls=false`), 'http://x');
    try {
      await assert.rejects(wrong.check(), (err: Error) => {
        assert.match(err.message, /FILES_S3_URL: the bucket no-such-bucket at http:\/\/127\.0\.0\.1:\d+ cannot be used \(HTTP 404\)/);
        assert.doesNotMatch(err.message, new RegExp(SECRET));
        return true;
      });
    } finally {
      wrong.close();
    }
  });
});

describe('FILES_S3_URL', () => {
  it('reads the bucket, its prefix and options; prints and refuses without the secret', () => {
    const config = loadConfig({
      FILES_S3_URL: `s3://AKIA1:${encodeURIComponent('se/cr@t+' + SECRET)}@minio.internal:9000/souk-files/a/b?region=eu-west-1&tls=false`,
    });
    assert.deepEqual(config.files.s3, {
      endpoint: 'http://minio.internal:9000',
      bucket: 'souk-files',
      prefix: 'a/b',
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIA1', secretAccessKey: `se/cr@t+${SECRET}` },
      forcePathStyle: true,
      checksums: 'when_supported',
    });
    const printed = effectiveSettings(config).find(([name]) => name === 'FILES_S3_URL')![1];
    assert.equal(
      printed,
      's3://AKIA1:****@minio.internal:9000/souk-files/a/b?region=eu-west-1&tls=false&path_style=true&checksums=when_supported',
    );
    const aws = parseS3Url('s3://s3.eu-west-1.amazonaws.com/my-bucket?region=eu-west-1');
    assert.equal(aws.forcePathStyle, false);
    assert.equal(aws.endpoint, 'https://s3.eu-west-1.amazonaws.com');
    assert.equal(aws.credentials, undefined, "the SDK's own chain");
    assert.throws(
      () => loadConfig({ FILES_S3_URL: 's3://host/souk-files', DATABASE_URL: 'mysql://root@127.0.0.1/wp' }),
      /FILES_S3_URL is set but DATABASE_URL is a WordPress site's/,
    );
    for (const bad of [
      `s3://k:${SECRET}@host/x`,
      `https://k:${SECRET}@host/bucket`,
      `s3://k:${SECRET}@host/bucket?acl=public`,
      `s3://k:${SECRET}@host/bucket?tls=maybe`,
      `s3://k:${SECRET}@host/bucket?checksums=never`,
      's3://k@host/bucket',
    ]) {
      assert.throws(
        () => loadConfig({ FILES_S3_URL: bad }),
        (err: Error) => err.message.startsWith('FILES_S3_URL') && !err.message.includes(SECRET),
        bad,
      );
    }
  });
});
