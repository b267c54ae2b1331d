/**
 * FILES_ACCESS=participants (docs/files.md, "Who can read a file"): the participants get signed,
 * expiring addresses in every reply and event that carries a file; Souk serves a file only through
 * such an address, and refuses the bare address, a forged or moved signature and an expired one.
 * What is stored stays the plain address; a bucket Souk serves (fauxqs, in this process) is
 * guarded the same way. Through a real socket; the database plays no part in the signing, so this
 * runs once, on SQLite.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFauxqs } from 'fauxqs';
import sharp from 'sharp';
import { fileAddressSigning } from '../../src/auth/file-addresses.js';
import { loadConfig } from '../../src/config.js';
import { LISTINGS, SITE_URL, USERS } from '../helpers/fixtures.js';
import { SseClient } from '../helpers/sse.js';
import { startTestSouk } from '../helpers/souk.js';

const API = '/wp-json/rtcl/v1';
const { amina, youssef } = USERS;
const TTL_S = 3600;
/** The expiry is rounded up to a 24th of the lifetime. */
const STEP_S = TTL_S / 24;
/** The expiry Souk signs with at `ms`: the lifetime from then, rounded up to a step. */
const expiryAt = (ms: number) => Math.ceil((Math.floor(ms / 1000) + TTL_S) / STEP_S) * STEP_S;
const SIGNED =
  /^(https:\/\/souk\.example\/files\/chat\/[0-9a-f]{2}\/[0-9a-f]{64}(?:-thumb)?\.[a-z]+)\?expires=(\d+)&signature=([A-Za-z0-9_-]{43})$/;

// A folder Souk makes: its mode is Souk's choice.
const dir = join(await mkdtemp(join(tmpdir(), 'souk-file-access-')), 'files');
const t = await startTestSouk({
  FILES_DIR: dir,
  FILES_ACCESS: 'participants',
  FILES_URL_TTL_S: String(TTL_S),
  FILES_SWEEP_INTERVAL_S: '0',
});
const base = await t.listen();
const started = await t.start(amina, { listing_id: LISTINGS.bike, text: 'Hello' });
assert.equal(started.statusCode, 200, started.body);
const conId: number = JSON.parse(started.body).con_id;
const local = (url: string) => url.replace(SITE_URL, base);

const photo = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#c33' } })
  .jpeg()
  .toBuffer();
const upload = new FormData();
upload.append('con_id', String(conId));
upload.append('text', 'the bike');
upload.append('files[]', new Blob([photo], { type: 'image/jpeg' }), 'bike.jpg');

const events = await SseClient.open(`${base}${API}/my/events`, t.auth(youssef));
const sentAtMs = Date.now();
const sentAt = Math.floor(sentAtMs / 1000);
const sent = await fetch(`${base}${API}/my/chat/message`, { method: 'POST', headers: t.auth(amina), body: upload });
const reply = (await sent.json()) as any;
assert.equal(sent.status, 200, JSON.stringify(reply));
const [file] = reply.attachments;

describe('FILES_ACCESS=participants', () => {
  it('gives the sender signed addresses that expire after FILES_URL_TTL_S, and stores the plain ones', async () => {
    for (const address of [file.url, file.thumbnail]) {
      const [, , expires] = SIGNED.exec(address) ?? assert.fail(`not a signed address: ${address}`);
      const lifetime = Number(expires) - sentAt;
      assert.ok(lifetime >= TTL_S && lifetime <= TTL_S + STEP_S + 5, `lives ${lifetime} s`);
      assert.equal(Number(expires) % STEP_S, 0);
    }
    const row = await t.souk.store.db
      .selectFrom('messages')
      .select('attachments')
      .where('id', '=', reply.message_id)
      .executeTakeFirstOrThrow();
    const [stored] = JSON.parse(row.attachments!);
    assert.equal(stored.url, SIGNED.exec(file.url)![1]);
    assert.equal(stored.thumbnail, SIGNED.exec(file.thumbnail)![1]);
  });

  it('keeps the files on disk for Souk alone: 0600 in 0700 folders', async () => {
    const key = SIGNED.exec(file.url)![1]!.slice(`${SITE_URL}/files/`.length);
    const mode = async (path: string) => ((await stat(join(dir, path))).mode & 0o777).toString(8);
    assert.equal(await mode(key), '600');
    assert.equal(await mode(key.replace(/\.jpg$/, '-thumb.jpg')), '600');
    for (const folder of ['', 'chat', key.split('/').slice(0, 2).join('/')])
      assert.equal(await mode(folder), '700', `${folder || 'FILES_DIR'}`);
  });

  it("gives the other participant the same addresses, in the conversation's read and in the live event", async () => {
    const read = await t.app.inject({ method: 'GET', url: `${API}/my/chat/conversation?con_id=${conId}`, headers: t.auth(youssef) });
    assert.equal(read.statusCode, 200, read.body);
    const message = read.json().messages.find((m: any) => Number(m.message_id) === reply.message_id);
    const [shown] = JSON.parse(message.attachments);
    const event = (await events.take(2)).find((e) => e.event === 'message.new') ?? assert.fail('no message.new event');
    const [streamed] = JSON.parse(event.data).message.attachments;
    events.close();
    if (expiryAt(sentAtMs) === expiryAt(Date.now())) {
      assert.deepEqual(shown, file, 'the same address from one read to the next: the apps keep their cached image');
      assert.deepEqual(streamed, file);
      return;
    }
    // A step ended between the upload and now: an address given since may carry the next expiry.
    for (const given of [shown, streamed]) {
      assert.deepEqual({ ...given, url: undefined, thumbnail: undefined }, { ...file, url: undefined, thumbnail: undefined });
      for (const key of ['url', 'thumbnail'] as const) {
        const [, plain, expires] = SIGNED.exec(given[key]) ?? assert.fail(`not a signed address: ${given[key]}`);
        assert.equal(plain, SIGNED.exec(file[key])![1]);
        assert.ok([expiryAt(sentAtMs), expiryAt(sentAtMs) + STEP_S].includes(Number(expires)), `expires ${expires}`);
      }
    }
  });

  it('serves the file through its signed address, to private caches for no longer than the address lives', async () => {
    const served = await fetch(local(file.url));
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/jpeg');
    const maxAge = Number(/^private, max-age=(\d+), immutable$/.exec(served.headers.get('cache-control') ?? '')?.[1]);
    assert.ok(maxAge > TTL_S - 60 && maxAge <= TTL_S + STEP_S, `max-age ${maxAge}`);
    assert.equal((await served.arrayBuffer()).byteLength, file.size);
    const range = await fetch(local(file.url), { headers: { range: 'bytes=0-9' } });
    assert.equal(range.status, 206);
    assert.equal((await range.arrayBuffer()).byteLength, 10);
  });

  it('refuses with 403, before looking for the file, the bare address, a changed or moved signature and an expired one', async () => {
    const [, plain, expires, signature] = SIGNED.exec(file.url)!;
    const thumbnail = SIGNED.exec(file.thumbnail)!;
    const flipped = `${signature!.slice(0, 10)}${signature![10] === 'A' ? 'B' : 'A'}${signature!.slice(11)}`;
    const signing = (now: number) =>
      fileAddressSigning({ filesUrl: `${SITE_URL}/files`, ttlS: 60, macKey: () => t.tokenKeys.tokenMacKey, now: () => now });
    const refused: Array<[string, string]> = [
      [plain!, 'This file address is not signed'],
      [`${plain}?expires=${expires}`, 'This file address is not signed'],
      [`${plain}?expires=${expires}&signature=${flipped}`, 'This file address is not signed'],
      [`${plain}?expires=${Number(expires) + 1}&signature=${signature}`, 'This file address is not signed'],
      [`${thumbnail[1]}?expires=${expires}&signature=${signature}`, 'This file address is not signed'],
      [`${plain}?expires=${expires}&signature=${signature}&signature=${signature}`, 'This file address is not signed'],
      [`${SITE_URL}/files/chat/00/${'0'.repeat(64)}.jpg?expires=${expires}&signature=${signature}`, 'This file address is not signed'],
      // Signed as Souk signs, two hours ago, for a minute.
      [signing(Date.now() - 7_200_000).sign(plain!), 'This file address has expired'],
    ];
    for (const [address, problem] of refused) {
      const res = await fetch(local(address));
      assert.equal(res.status, 403, address);
      assert.equal(await res.text(), problem, address);
    }
    // A valid signature for a file that is not there: not found, as for a public address.
    const missing = signing(Date.now()).sign(`${SITE_URL}/files/chat/00/${'0'.repeat(64)}.jpg`);
    assert.equal((await fetch(local(missing))).status, 404);
  });

  it('serves a file from a bucket (FILES_S3_URL) through its signed address only', async () => {
    const bucket = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false });
    bucket.createBucket('chat');
    const s3 = await startTestSouk({
      FILES_S3_URL: `s3://souk:secret@127.0.0.1:${bucket.port}/chat?tls=false`,
      FILES_ACCESS: 'participants',
      FILES_SWEEP_INTERVAL_S: '0',
    });
    try {
      const s3Base = await s3.listen();
      const opened = await s3.start(amina, { listing_id: LISTINGS.bike, text: 'Hello' });
      const form = new FormData();
      form.append('con_id', String(JSON.parse(opened.body).con_id));
      form.append('files[]', new Blob([photo], { type: 'image/jpeg' }), 'bike.jpg');
      const res = await fetch(`${s3Base}${API}/my/chat/message`, { method: 'POST', headers: s3.auth(amina), body: form });
      const [stored] = ((await res.json()) as any).attachments;
      const [, plain] = SIGNED.exec(stored.url) ?? assert.fail(`not a signed address: ${stored.url}`);
      const served = await fetch(stored.url.replace(SITE_URL, s3Base));
      assert.equal(served.status, 200);
      assert.equal((await served.arrayBuffer()).byteLength, stored.size);
      assert.equal((await fetch(plain!.replace(SITE_URL, s3Base))).status, 403);
    } finally {
      await s3.close();
      await bucket.stop();
    }
  });

  it('cannot be set with FILES_S3_PUBLIC_URL: the bucket would serve the files to anyone', () => {
    assert.throws(
      () =>
        loadConfig({
          FILES_ACCESS: 'participants',
          FILES_S3_URL: 's3://key:secret@s3.example/bucket',
          FILES_S3_PUBLIC_URL: 'https://cdn.example/chat',
        }),
      /FILES_ACCESS=participants but FILES_S3_PUBLIC_URL is set/,
    );
  });
});
