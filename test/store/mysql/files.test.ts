/**
 * Photos and documents in the chat on a WordPress site's tables (docs/files.md): the files go to
 * the site's uploads folder under its uploads address, the message row holds the plugin's
 * attachment objects in `attachments` with `type` `attachment`, names are stripped of markup as
 * the site prints them, and the sweep and a message's deletion see the site's messages.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { sweepOrphans } from '../../../src/domain/files/sweep.js';
import { removeMessage } from '../../../src/domain/moderation.js';
import { LocalFolderStorage } from '../../../src/store/files/local-folder.js';
import { PATHS, startTestSouk } from '../../helpers/souk.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';

const JWT_SECRET = 'souk-files-test-secret-0123456789abcdef';
const { alice: ALICE, bob: BOB } = SITE_USERS;
const IPHONE = SITE_LISTINGS.iphone;
const UPLOADS_URL = 'http://127.0.0.1:8090/wp-content/uploads/classified-listing';
const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';

async function filesUnder(root: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true }).catch(() => [])) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await filesUnder(root, rel)));
    else out.push(rel);
  }
  return out.sort();
}

describe('files in the chat on the site tables', { skip }, () => {
  it("stores in the site's uploads folder and the plugin's attachments column; refuses with nothing stored; sweeps", async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    const uploads = await mkdtemp(join(tmpdir(), 'souk-wp-uploads-'));
    const t = await startTestSouk(
      { DATABASE_URL: site.url, JWT_SECRET, FILES_DIR: uploads, FILES_URL: UPLOADS_URL, FILES_SWEEP_INTERVAL_S: '0' },
      null,
    );
    const base = await t.listen();
    const headers = (user: number) => ({ authorization: `Bearer ${t.token(user, { login: SITE_LOGINS[user] })}`, 'x-api-key': t.apiKey });

    const photo = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#357' } })
      .jpeg()
      .withExifMerge({ IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2964/100' } })
      .toBuffer();
    const data = new FormData();
    data.append('listing_id', String(IPHONE));
    data.append('text', '');
    data.append('files[]', new Blob([photo], { type: 'image/jpeg' }), '<img src=x onerror=alert(1)>phone.jpg');
    const res = await fetch(`${base}${PATHS.start}`, { method: 'POST', headers: headers(ALICE), body: data });
    const body = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(body));
    const message = body.newMessage;
    assert.equal(message.type, 'attachment');
    const [file] = message.attachments;
    assert.equal(file.name, 'phone.jpg', 'markup stripped as the site prints it');
    assert.ok(file.url.startsWith(`${UPLOADS_URL}/chat/`), file.url);
    assert.deepEqual((await filesUnder(uploads)).filter((f) => !f.startsWith('.')).length, 2, 'the photo and its thumbnail');

    const [row] = await site.query<{ type: string; attachments: unknown }>(
      `select type, attachments from wp_rtcl_conversation_messages where message_id = ${Number(message.message_id)}`,
    );
    assert.equal(row!.type, 'attachment');
    const stored = typeof row!.attachments === 'string' ? JSON.parse(row!.attachments) : row!.attachments;
    assert.deepEqual(stored, message.attachments);

    // The other participant reads it; a refused upload stores nothing.
    const read = await t.app.inject({
      method: 'GET',
      url: `/wp-json/rtcl/v1/my/chat/conversation?con_id=${body.con_id}`,
      headers: headers(BOB),
    });
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(JSON.parse(read.json().messages[0].attachments), message.attachments, read.body);
    const before = await filesUnder(uploads);
    const bad = new FormData();
    bad.append('con_id', String(body.con_id));
    bad.append('text', 'x');
    bad.append('files[]', new Blob(['<html><body>hi</body></html>'], { type: 'application/pdf' }), 'quote.pdf');
    const refused = await fetch(`${base}/wp-json/rtcl/v1/my/chat/message`, { method: 'POST', headers: headers(BOB), body: bad });
    assert.equal(refused.status, 400);
    assert.match(((await refused.json()) as any).error_message, /"quote\.pdf"/);
    const [count] = await site.query<{ n: number }>(
      `select count(*) as n from wp_rtcl_conversation_messages where con_id = ${Number(body.con_id)}`,
    );
    assert.equal(Number(count!.n), 1);
    assert.deepEqual(
      (await filesUnder(uploads)).filter((f) => !f.startsWith('.')),
      before.filter((f) => !f.startsWith('.')),
    );

    // Souk's own table names the message's files, by digest.
    const digest = /[0-9a-f]{64}/.exec(file.url)![0];
    const recorded = await site.query<{ message_id: number; digest: string }>(
      `select message_id, digest from wp_souk_message_files where con_id = ${Number(body.con_id)}`,
    );
    assert.deepEqual(
      recorded.map((r) => [Number(r.message_id), r.digest]),
      [[Number(message.message_id), digest]],
    );

    // The site's own uploads, and names in chat/ that Souk did not make: never swept, however old.
    const theirs = ['2024/05/photo.jpg', 'chat/readme.txt', 'chat/ab/not-a-digest.jpg', `chat/ab/${'cd'.repeat(32)}.jpg`];
    for (const key of theirs) {
      await mkdir(join(uploads, key, '..'), { recursive: true });
      await writeFile(join(uploads, key), key);
    }

    // The sweep keeps what the site's messages name, the plugin's own too, and removes what they no longer do.
    const storage = new LocalFolderStorage(uploads, UPLOADS_URL);
    const sweep = async () => (await sweepOrphans(storage, t.souk.store.fileReferences, Date.now() + 10_000, 1)).removed;
    assert.equal(await sweep(), 0);
    await site.query(
      `insert into wp_rtcl_conversation_messages (con_id, source_id, type, message, attachments, is_read, created_at)
       values (?, ?, 'attachment', '', ?, 0, now())`,
      [Number(body.con_id), BOB, JSON.stringify([file])],
    );
    await site.query(`update wp_rtcl_conversation_messages set attachments = null where message_id = ${Number(message.message_id)}`);
    assert.equal(await sweep(), 0, "a message the plugin stored names Souk's file");
    await site.query(`delete from wp_rtcl_conversation_messages where con_id = ${Number(body.con_id)} and source_id = ${BOB}`);
    assert.equal(await sweep(), 2);
    for (const key of theirs) assert.ok((await filesUnder(uploads)).includes(key), `${key} stays`);

    // The admin's removal forgets the message's files.
    assert.ok((await removeMessage(t.souk.store, Number(message.message_id))).ok);
    assert.deepEqual(await site.query(`select digest from wp_souk_message_files where con_id = ${Number(body.con_id)}`), []);
    await t.close();
    await site.drop();
  });
});
