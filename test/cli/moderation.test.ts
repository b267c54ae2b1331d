/**
 * The operator's moderation and a user's data as the operator runs them: `souk users disable`,
 * `enable`, `export`, `erase` and `souk messages delete`, each a command line of its own (run in
 * this process: test/helpers/cli.ts) beside a real `souk serve` process on one database (SQLite, or PostgreSQL with TEST_DATABASE_URL). The erasure races
 * messages sent to the user: once it has answered, none of them is stored.
 */
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import sharp from 'sharp';
import { join } from 'node:path';
import { freshDatabase } from '../helpers/database.js';
import { marketplace, USERS } from '../helpers/fixtures.js';
import { ok, scratch, souk, startServer } from '../helpers/cli.js';

const CLOSED = { code: 'FORBIDDEN', message: 'You cannot send messages to this user.' };
const BIKE = 101; // youssef's
const PASSWORD = 'correct horse battery staple';
const LOGINS: Record<number, string> = { [USERS.amina]: 'amina', [USERS.youssef]: 'youssef' };

interface Marketplace {
  db: string;
  env: Record<string, string>;
  base: string;
  apiKey: string;
  token(userId: number): Promise<string>;
  call(method: string, path: string, userId: number | null, body?: unknown): Promise<{ status: number; json: any }>;
  signIn(login: string): Promise<number>;
  /** Forgets the user's token: the next call gets a new one. */
  forget(userId: number): void;
}

async function marketplaceWithServer(t: TestContext, extraEnv: Record<string, string> = {}): Promise<Marketplace> {
  const { dir, db } = scratch(t);
  const database = await freshDatabase();
  t.after(() => database.drop());
  const env = { DATABASE_URL: database.url, SETTINGS_REFRESH_MS: '100', FILES_DIR: join(dir, 'files'), ...extraEnv };
  const document = join(dir, 'marketplace.json');
  writeFileSync(document, JSON.stringify(marketplace()));
  await ok(db, ['import', document], { env });
  for (const id of [USERS.amina, USERS.youssef]) await ok(db, ['users', 'set-password', String(id)], { env, input: PASSWORD });
  const { base } = await startServer(t, db, env);
  const apiKey = (await ok(db, ['settings', 'get', 'api_key'], { env })).trimEnd();
  const tokens = new Map<number, string>();
  const login = async (username: string) =>
    fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: PASSWORD }),
    });
  // Tokens as the apps get them: signed in.
  const token = async (userId: number) => {
    if (!tokens.has(userId)) tokens.set(userId, ((await (await login(LOGINS[userId]!)).json()) as { jwt_token: string }).jwt_token);
    return tokens.get(userId)!;
  };
  const call = async (method: string, path: string, userId: number | null, body?: unknown) => {
    const headers: Record<string, string> = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    if (userId !== null) headers.authorization = `Bearer ${await token(userId)}`;
    const res = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, json: await res.json() };
  };
  const signIn = async (username: string) => (await login(username)).status;
  return { db, env, base, apiKey, token, call, signIn, forget: (userId) => tokens.delete(userId) };
}

/** Polls `check` until it holds (the servers' caches follow within SETTINGS_REFRESH_MS). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`never: ${what}`);
}

const messagesOf = async (m: Marketplace, userId: number, conId: number) => {
  const read = await m.call('GET', `/my/chat/conversation?con_id=${conId}&per_page=100`, userId);
  assert.equal(read.status, 200, JSON.stringify(read.json));
  return read.json.messages as { message_id: number; message: string; source_id: number; type: string }[];
};

describe('souk users disable|enable|export|erase, souk messages delete', () => {
  it('disables and enables a user, removes a message, exports, and erases racing messages', async (t) => {
    const m = await marketplaceWithServer(t);
    const { db, env } = m;
    const started = await m.call('POST', '/my/chat/conversation', USERS.amina, { listing_id: BIKE, text: 'Is the bike still there?' });
    assert.equal(started.status, 200, JSON.stringify(started.json));
    const conId = Number(started.json.con_id);
    const send = (userId: number, text: string) => m.call('POST', '/my/chat/message', userId, { con_id: conId, text });
    assert.equal((await send(USERS.youssef, 'Yes it is')).status, 200);
    assert.equal((await m.call('POST', '/my/favourites', USERS.amina, { listing_id: BIKE })).status, 200);

    // Disabled: no message to or from them at once; sign-in refused as a wrong password is; their token refused soon.
    assert.equal(await ok(db, ['users', 'disable', String(USERS.youssef)], { env }), `user ${USERS.youssef} disabled\n`);
    const refused = await send(USERS.amina, 'Hello?');
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.json, CLOSED);
    assert.equal(await m.signIn('youssef'), 400);
    await eventually(async () => (await m.call('GET', '/my/chat', USERS.youssef)).status !== 200, "the disabled user's token refused");
    assert.equal(await ok(db, ['users', 'disable', String(USERS.youssef)], { env }), `user ${USERS.youssef} was already disabled\n`);
    assert.equal(await ok(db, ['users', 'enable', String(USERS.youssef)], { env }), `user ${USERS.youssef} enabled\n`);
    assert.equal((await send(USERS.amina, 'Can I come today?')).status, 200);
    assert.equal(await m.signIn('youssef'), 200);
    // The disable revoked their tokens issued until then: a new one works (the mark is by the second).
    await eventually(async () => {
      m.forget(USERS.youssef);
      return (await m.call('GET', '/my/chat', USERS.youssef)).status === 200;
    }, 'a token issued after the enable works');
    const missing = await souk(db, ['users', 'disable', '999'], { env });
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'souk: no user with id 999\n');

    // The admin's removal: the message keeps its place, emptied, and reads as text.
    const before = await messagesOf(m, USERS.amina, conId);
    const first = before.at(-1)!;
    assert.match(
      await ok(db, ['messages', 'delete', String(first.message_id)], { env }),
      new RegExp(`^message ${first.message_id} removed`),
    );
    const after = await messagesOf(m, USERS.youssef, conId);
    assert.deepEqual(
      after.map((x) => x.message_id),
      before.map((x) => x.message_id),
    );
    assert.deepEqual({ message: after.at(-1)!.message, type: after.at(-1)!.type }, { message: '', type: 'text' });
    assert.equal((await souk(db, ['messages', 'delete', '999999'], { env })).stderr, 'souk: no message with id 999999\n');

    // Her block of a listing (a published one: others answer as missing) and her report of the conversation, made through the routes.
    assert.equal((await m.call('POST', '/privacy/listing/block', USERS.amina, { listing_id: BIKE })).status, 200);
    assert.equal((await m.call('POST', '/my/chat/report', USERS.amina, { con_id: conId, reason: 'rude' })).status, 200);

    // A photo of hers, stored in FILES_DIR until her erasure.
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c33' } })
      .png()
      .toBuffer();
    const upload = new FormData();
    upload.set('con_id', String(conId));
    upload.append('files[]', new Blob([png], { type: 'image/png' }), 'photo.png');
    const uploaded = await fetch(`${m.base}/my/chat/message`, {
      method: 'POST',
      headers: { 'x-api-key': m.apiKey, authorization: `Bearer ${await m.token(USERS.amina)}` },
      body: upload,
    });
    assert.equal(uploaded.status, 200);
    const photo = (await uploaded.json()) as { attachments: { url: string; thumbnail: string }[] };
    const stored = [photo.attachments[0]!.url, photo.attachments[0]!.thumbnail].map((url) =>
      join(m.env.FILES_DIR!, new URL(url).pathname.replace(/^.*?\/files\//, '')),
    );
    assert.ok(
      stored.every((file) => existsSync(file)),
      stored.join(', '),
    );

    // The export: one JSON document; of the other side, only id and name.
    const exported = JSON.parse(await ok(db, ['users', 'export', String(USERS.amina)], { env }));
    assert.equal(exported.user.login, 'amina');
    assert.equal(exported.user.registered_at, null, 'the fixture does not date its users');
    assert.deepEqual(
      exported.favourites.map((f: { listing_id: number }) => f.listing_id),
      [BIKE],
    );
    assert.deepEqual(exported.blocks, { users: [], listings: [BIKE] });
    assert.deepEqual(
      exported.reports.map((r: { kind: string; con_id: number; reason: string }) => [r.kind, r.con_id, r.reason]),
      [['conversation', conId, 'rude']],
    );
    assert.equal(exported.conversations.length, 1);
    const conversation = exported.conversations[0];
    assert.deepEqual(Object.keys(conversation.other_user), ['id', 'name']);
    assert.deepEqual(
      conversation.messages.map((x: { text: string }) => x.text),
      ['', 'Yes it is', 'Can I come today?', ''],
    );

    // The erasure, racing Youssef's messages to Amina: once it answered, none is stored.
    const sends = Array.from({ length: 12 }, (_, i) => send(USERS.youssef, `race ${i}`));
    const erased = await ok(db, ['users', 'erase', String(USERS.amina)], { env });
    const atAnswer = (await messagesOf(m, USERS.youssef, conId)).map((x) => x.message_id);
    const answers = await Promise.all(sends);
    assert.deepEqual(
      (await messagesOf(m, USERS.youssef, conId)).map((x) => x.message_id),
      atAnswer,
      'no message committed after the erasure answered',
    );
    for (const a of answers) assert.ok(a.status === 200 || a.status === 403, JSON.stringify(a.json));
    assert.match(
      erased,
      /^user 1 erased: 2 messages emptied .*1 favourites.* 1 blocks, 1 reports removed; tokens revoked, sign-in refused\nprofile: "Deleted user", without e-mail, phone or picture\n$/,
    );
    assert.ok(!erased.includes('WordPress'));
    assert.ok(
      stored.every((file) => !existsSync(file)),
      'her photo and its thumbnail are deleted with her',
    );

    // Their messages keep their place, emptied; the other side sees "Deleted user"; no sign-in, no messages.
    const kept = await messagesOf(m, USERS.youssef, conId);
    assert.ok(kept.filter((x) => x.source_id === USERS.amina).every((x) => x.message === ''));
    assert.ok(kept.some((x) => x.message === 'Yes it is'));
    await eventually(async () => {
      const list = await m.call('GET', '/my/chat', USERS.youssef);
      return JSON.stringify(list.json).includes('Deleted user') && !JSON.stringify(list.json).includes('amina@example.com');
    }, 'the other side sees "Deleted user"');
    assert.equal(await m.signIn('amina'), 400);
    assert.deepEqual((await send(USERS.youssef, 'Hello?')).json, CLOSED);
    const profile = JSON.parse(await ok(db, ['users', 'export', String(USERS.amina)], { env }));
    assert.deepEqual(
      {
        name: profile.user.name,
        email: profile.user.email,
        phone: profile.user.phone,
        favourites: profile.favourites,
        blocks: profile.blocks,
        reports: profile.reports,
        conversations: profile.conversations,
      },
      {
        name: 'Deleted user',
        email: '',
        phone: '',
        favourites: [],
        blocks: { users: [], listings: [] },
        reports: [],
        conversations: profile.conversations,
      },
    );

    // Idempotent; an erased user stays disabled.
    assert.match(await ok(db, ['users', 'erase', String(USERS.amina)], { env }), /^user 1 erased: 0 messages emptied/);
    const enable = await souk(db, ['users', 'enable', String(USERS.amina)], { env });
    assert.equal(enable.code, 1);
    assert.equal(enable.stderr, 'souk: user 1 was erased: an erased user stays disabled\n');
  });

  it('deletes only the files uploaded with a message: a photo its message names stays through delete and erase', async (t) => {
    const FILES_URL = 'https://souk.example/files';
    const m = await marketplaceWithServer(t, { FILES_URL });
    const { db, env } = m;
    // A seller's listing photo where Souk's files are served from (a WordPress site's uploads folder).
    const listingPhoto = join(env.FILES_DIR!, '2024', '05', 'photo.jpg');
    mkdirSync(join(listingPhoto, '..'), { recursive: true });
    writeFileSync(listingPhoto, 'the listing photo');
    const started = await m.call('POST', '/my/chat/conversation', USERS.amina, { listing_id: BIKE, text: 'Is the bike still there?' });
    assert.equal(started.status, 200, JSON.stringify(started.json));
    const conId = Number(started.json.con_id);

    // Youssef's upload, which Amina cannot name in a message of hers (below).
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3c3' } })
      .png()
      .toBuffer();
    const upload = new FormData();
    upload.set('con_id', String(conId));
    upload.append('files[]', new Blob([png], { type: 'image/png' }), 'bike.png');
    const uploaded = await fetch(`${m.base}/my/chat/message`, {
      method: 'POST',
      headers: { 'x-api-key': m.apiKey, authorization: `Bearer ${await m.token(USERS.youssef)}` },
      body: upload,
    });
    assert.equal(uploaded.status, 200);
    const [his] = ((await uploaded.json()) as { attachments: { url: string }[] }).attachments;
    const hisFile = join(env.FILES_DIR!, his!.url.slice(FILES_URL.length + 1));
    assert.ok(existsSync(hisFile), hisFile);

    // The listing photo she may name; deleting her message, then erasing her, leaves it, and his upload.
    const name = (text: string) =>
      m.call('POST', '/my/chat/message', USERS.amina, { con_id: conId, text, files: [{ url: `${FILES_URL}/2024/05/photo.jpg` }] });
    const named = await name('this one');
    assert.equal(named.status, 200, JSON.stringify(named.json));
    assert.match(await ok(db, ['messages', 'delete', String(named.json.message_id)], { env }), /removed/);
    assert.ok(existsSync(listingPhoto), 'the listing photo stays after the message is deleted');
    const claimed = await m.call('POST', '/my/chat/message', USERS.amina, { con_id: conId, text: 'mine', files: [{ url: his!.url }] });
    assert.equal(claimed.status, 400);
    assert.match(claimed.json.error_message, /^files\[\]\.url must not name a file uploaded to the chat/);
    assert.equal((await name('this one again')).status, 200);
    assert.match(await ok(db, ['users', 'erase', String(USERS.amina)], { env }), /erased/);
    assert.ok(existsSync(listingPhoto), 'the listing photo stays after her erasure');
    assert.ok(existsSync(hisFile), "the seller's upload stays");
  });
});
