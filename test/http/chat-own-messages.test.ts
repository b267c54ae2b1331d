/**
 * A sender takes back or corrects their message (docs/chat-plus.md): DELETE and PATCH
 * my/chat/message through a real socket, with the events on both participants' streams and the
 * webhooks, the uploaded file deleted, a report's copy kept as it was, the export's history, the
 * refusals in their shapes, and both reply generations reading the result. On SQLite, and on
 * PostgreSQL with TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { sql } from 'kysely';
import { newServerKey, serverKeyDigest } from '../../src/auth/server-keys.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { SseClient } from '../helpers/sse.js';
import { webhookReceiver } from '../helpers/webhook-receiver.js';
import { until } from '../helpers/until.js';

const API = '/wp-json/rtcl/v1';
const MESSAGE = `${API}/my/chat/message`;
const { amina, youssef, sara } = USERS;
const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const bad = (error_message: string) => ({ status: 'error', error: 'BADREQUEST', code: '400', error_message });
const forbidden = (message: string) => ({ code: 'FORBIDDEN', message });
const NO_PERMISSION = forbidden('You are not permitted to access this conversation.');
const NOT_YOURS = forbidden('You are not permitted to change this message: only its sender may.');
const OTHER_CONVERSATION = forbidden('You are not permitted to change this message: it is not a message of this conversation.');

/** Every file under the folder, relative, the uploads' waiting room aside. */
async function storedFiles(root: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true }).catch(() => [])) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await storedFiles(root, rel)));
    else if (!rel.startsWith('.uploads/')) out.push(rel);
  }
  return out.sort();
}

// One server for the file, with stored files and a webhook receiver.
const dir = await mkdtemp(join(tmpdir(), 'souk-own-messages-'));
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const hooks = await webhookReceiver(secret);
const t: TestSouk = await startTestSouk({ FILES_DIR: dir, FILES_SWEEP_INTERVAL_S: '0', WEBHOOK_URLS: hooks.url, WEBHOOK_SECRET: secret });
const base = await t.listen();

const call = async (method: string, url: string, as: number, body?: unknown) => {
  const res = await fetch(base + url, {
    method,
    headers: { ...t.auth(as), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : JSON.parse(text) };
};
const remove = (as: number, conId: number, messageId: number | string) =>
  call('DELETE', `${MESSAGE}?con_id=${conId}&message_id=${messageId}`, as);
const edit = (as: number, body: unknown) => call('PATCH', MESSAGE, as, body);
const send = async (as: number, conId: number, text: string) => {
  const res = await call('POST', MESSAGE, as, { con_id: conId, text });
  assert.equal(res.status, 200, JSON.stringify(res.json));
  return res.json;
};
/** The user's event stream, once the server holds it (what follows reaches it). */
const stream = async (userId: number) => {
  const client = await SseClient.open(`${base}${API}/my/events`, t.auth(userId));
  assert.equal(client.status, 200, client.body);
  await until(() => t.souk.streams!.isStreaming(userId));
  return client;
};
const readConversation = async (as: number, conId: number) => {
  const res = await call('GET', `${API}/my/chat/conversation?con_id=${conId}`, as);
  assert.equal(res.status, 200, JSON.stringify(res.json));
  return res.json;
};

const started = await t.start(amina, { listing_id: LISTINGS.bike, text: 'Hello' });
assert.equal(started.statusCode, 200, started.body);
const conId: number = started.json().con_id;
const saras = await t.start(sara, { listing_id: LISTINGS.bike, text: 'Is it available?' });
const sarasConId: number = saras.json().con_id;
const sarasMessageId: number = saras.json().newMessage.message_id;

describe('a sender takes back a message', () => {
  it('empties it, deletes its file, tells both sides on streams and webhooks, keeps the report; again answers alike', async () => {
    const photo = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#a00' } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('con_id', String(conId));
    form.append('text', 'My phone number is 555 0100');
    form.append('files[]', new Blob([photo], { type: 'image/png' }), 'bike.png');
    const sent = await fetch(base + MESSAGE, { method: 'POST', headers: t.auth(amina), body: form });
    const message = (await sent.json()) as any;
    assert.equal(sent.status, 200, JSON.stringify(message));
    assert.equal(message.attachments.length, 1);
    assert.equal((await storedFiles(dir)).length > 0, true);

    // The owner reports it before it is taken back.
    const reported = await call('POST', `${API}/my/chat/report`, youssef, {
      con_id: conId,
      message_id: message.message_id,
      reason: 'spam',
    });
    assert.equal(reported.status, 200, JSON.stringify(reported.json));

    const buyer = await stream(amina);
    const owner = await stream(youssef);
    const res = await remove(amina, conId, message.message_id);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    const emptied = { ...message, message: '', attachments: null, type: 'text' };
    assert.deepEqual(res.json, emptied);
    // Its stored file is gone (the thumbnail with it).
    assert.deepEqual(await storedFiles(dir), []);
    for (const client of [buyer, owner]) {
      const event = await client.next();
      assert.equal(event.event, 'message.removed');
      assert.deepEqual(JSON.parse(event.data), { message: emptied });
    }
    // Again: 200, the same message, nothing more sent.
    assert.deepEqual(await remove(amina, conId, message.message_id), { status: 200, json: emptied });
    await owner.nothingWithin(150);
    buyer.close();
    owner.close();

    // Both participants' webhooks.
    const deadline = Date.now() + 10_000;
    const removedHooks = () => hooks.received.filter((r) => r.body.type === 'message.removed');
    while (new Set(removedHooks().map((r) => r.id)).size < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const byUser = new Map(removedHooks().map((r) => [r.body.user_id, r.body.data]));
    assert.deepEqual([...byUser.keys()].sort(), [amina, youssef]);
    assert.deepEqual(byUser.get(youssef), { message: emptied });

    // The conversation keeps the row, as a moderator's removal leaves it.
    const read = await readConversation(youssef, conId);
    const row = read.messages.find((m: any) => Number(m.message_id) === message.message_id);
    assert.equal(row.message, '');
    assert.equal(row.attachments, null);

    // What the report captured stays as it was.
    const key = newServerKey();
    assert.ok(await t.souk.store.serverKeys.add('backend', serverKeyDigest(key), Date.now()));
    await t.souk.serverKeys.refresh();
    const reports = await fetch(`${base}/souk/v1/reports`, { headers: { authorization: `Bearer ${key}` } });
    const report = ((await reports.json()) as any).data.find((r: any) => r.message_id === message.message_id);
    assert.equal(report.messages[0].text, 'My phone number is 555 0100');
  });

  it("refuses another's message, another conversation's, and a conversation of others; unknown ids as the neighbours", async () => {
    const mine = await send(amina, conId, 'to take back');
    const theirs = await send(youssef, conId, 'not yours');
    assert.deepEqual(await remove(amina, conId, theirs.message_id), { status: 403, json: NOT_YOURS });
    assert.deepEqual(await remove(amina, conId, sarasMessageId), { status: 403, json: OTHER_CONVERSATION });
    assert.deepEqual(await remove(amina, sarasConId, sarasMessageId), { status: 403, json: NO_PERMISSION });
    assert.deepEqual(await remove(amina, 999_999, mine.message_id), { status: 403, json: NO_PERMISSION });
    assert.deepEqual(await remove(amina, conId, 999_999), {
      status: 400,
      json: bad('message_id is not a message of this conversation.'),
    });
    assert.deepEqual(await remove(amina, conId, 'x'), {
      status: 400,
      json: bad('message_id is required and must be a positive integer.'),
    });
    // Nothing changed.
    const rows = (await readConversation(amina, conId)).messages;
    assert.equal(rows.find((m: any) => Number(m.message_id) === mine.message_id).message, 'to take back');
    assert.equal(rows.find((m: any) => Number(m.message_id) === theirs.message_id).message, 'not yours');
  });
});

describe('a sender corrects a message', () => {
  it('replaces the text with meta.edited_at, tells both sides, keeps the history for the export', async () => {
    const original = await send(amina, conId, 'Can you do 90?');
    const owner = await stream(youssef);
    const res = await edit(amina, { con_id: conId, message_id: original.message_id, text: 'Can you do 95?' });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    const { meta } = res.json;
    assert.deepEqual({ ...res.json, meta: null }, { ...original, message: 'Can you do 95?' });
    assert.deepEqual(Object.keys(res.json), Object.keys(original));
    assert.deepEqual(Object.keys(meta), ['edited_at']);
    assert.match(meta.edited_at, TIME);
    const update = await owner.next();
    assert.equal(update.event, 'message.update');
    assert.deepEqual(JSON.parse(update.data), { message: res.json });
    owner.close();

    // The reads show the text as it is now, and when it was corrected.
    const row = (await readConversation(youssef, conId)).messages.find((m: any) => Number(m.message_id) === original.message_id);
    assert.equal(row.message, 'Can you do 95?');
    assert.deepEqual(JSON.parse(row.meta), { edited_at: meta.edited_at });

    // The same text again changes nothing; a second correction is kept too.
    assert.equal((await edit(amina, { con_id: conId, message_id: original.message_id, text: 'Can you do 95?' })).status, 200);
    assert.equal((await edit(amina, { con_id: conId, message_id: original.message_id, text: 'Can you do 97?' })).status, 200);

    const key = newServerKey();
    assert.ok(await t.souk.store.serverKeys.add('exporter', serverKeyDigest(key), Date.now()));
    await t.souk.serverKeys.refresh();
    const exported = (await (
      await fetch(`${base}/souk/v1/users/${amina}/export`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as any;
    const inExport = exported.conversations.find((c: any) => c.id === conId).messages.find((m: any) => m.id === original.message_id);
    assert.equal(inExport.text, 'Can you do 97?');
    assert.deepEqual(
      inExport.edits.map((e: any) => [e.previous_text, e.text]),
      [
        ['Can you do 90?', 'Can you do 95?'],
        ['Can you do 95?', 'Can you do 97?'],
      ],
    );
    assert.match(inExport.edited_at, /^\d{4}-\d{2}-\d{2}T/);
    // The other side's export shows the text as it is, not the sender's history.
    const theirs = (await (
      await fetch(`${base}/souk/v1/users/${youssef}/export`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as any;
    const seen = theirs.conversations.find((c: any) => c.id === conId).messages.find((m: any) => m.id === original.message_id);
    assert.equal(seen.text, 'Can you do 97?');
    assert.equal(seen.edits, undefined);
  });

  it('refuses empty text, bad words, a read message, one past the window, and the same wrong ids as the removal', async () => {
    const mine = await send(amina, conId, 'first words');
    const theirs = await send(youssef, conId, 'theirs');
    const patch = (message_id: number, text: unknown, con = conId) => edit(amina, { con_id: con, message_id, text });
    assert.deepEqual(await patch(mine.message_id, ''), {
      status: 400,
      json: bad('text is required: send a non-empty message or attach at least one file.'),
    });
    assert.deepEqual(await patch(mine.message_id, '   '), {
      status: 400,
      json: bad('text is required: send a non-empty message or attach at least one file.'),
    });
    assert.deepEqual(await patch(mine.message_id, 7), { status: 400, json: bad('text is required and must be a string.') });
    await t.souk.store.settings.set('bad_words', 'scam');
    await t.souk.settings.refresh();
    try {
      assert.deepEqual(await patch(mine.message_id, 'a SCAM'), {
        status: 400,
        json: bad('Your message contains inappropriate words (scam).'),
      });
    } finally {
      await t.souk.store.settings.set('bad_words', '');
      await t.souk.settings.refresh();
    }
    assert.deepEqual(await patch(theirs.message_id, 'mine now'), { status: 403, json: NOT_YOURS });
    assert.deepEqual(await patch(sarasMessageId, 'mine now'), { status: 403, json: OTHER_CONVERSATION });
    assert.deepEqual(await patch(sarasMessageId, 'mine now', sarasConId), { status: 403, json: NO_PERMISSION });

    // Past MESSAGE_EDIT_WINDOW_S (15 minutes): the message is made older than that.
    const aged = await send(amina, conId, 'old words');
    await sql`update messages set created_at = created_at - ${16 * 60_000} where id = ${aged.message_id}`.execute(t.souk.store.db);
    assert.deepEqual(await patch(aged.message_id, 'new words'), {
      status: 403,
      json: forbidden('You are not permitted to edit a message more than 15 minutes after sending it.'),
    });

    // Read by the other side: refused (MESSAGE_EDIT_AFTER_READ false).
    const read = await call('PUT', `${MESSAGE}?con_id=${conId}&message_id=${mine.message_id}`, youssef, {});
    assert.equal(read.status, 200);
    assert.deepEqual(await patch(mine.message_id, 'too late'), {
      status: 403,
      json: forbidden('You are not permitted to edit a message the other participant has read.'),
    });
    // An offer's text is Souk's, not the sender's words; nor is a removed message's.
    const offer = await call('POST', `${API}/my/chat/offer`, amina, { con_id: conId, amount: 900 });
    assert.equal(offer.status, 200, JSON.stringify(offer.json));
    assert.deepEqual(await patch(offer.json.message_id, 'Offer: $1 for Road bike'), {
      status: 403,
      json: forbidden('You are not permitted to edit this message.'),
    });
    const gone = await send(amina, conId, 'gone');
    assert.equal((await remove(amina, conId, gone.message_id)).status, 200);
    assert.deepEqual(await patch(gone.message_id, 'back'), { status: 403, json: forbidden('You are not permitted to edit this message.') });

    const rows = (await readConversation(amina, conId)).messages;
    assert.equal(rows.find((m: any) => Number(m.message_id) === mine.message_id).message, 'first words');
    assert.equal(rows.find((m: any) => Number(m.message_id) === aged.message_id).message, 'old words');
  });

  it('the classic reply generation reads a corrected and a removed message', async () => {
    const classic = await startTestSouk({ CHAT_REPLY_FORMAT: 'classic' });
    const res = await classic.start(amina, { listing_id: LISTINGS.bike, text: 'Hello' });
    const id: number = res.json().con_id;
    const post = (text: string) => classic.post(MESSAGE, { con_id: id, text }, classic.auth(amina));
    const a = (await post('to correct')).json();
    const b = (await post('to take back')).json();
    const inject = (method: 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
      classic.app.inject({ method, url, headers: { ...classic.auth(amina), 'content-type': 'application/json' }, payload: payload ?? {} });
    assert.equal((await inject('PATCH', MESSAGE, { con_id: id, message_id: a.message_id, text: 'corrected' })).statusCode, 200);
    assert.equal((await inject('DELETE', `${MESSAGE}?con_id=${id}&message_id=${b.message_id}`)).statusCode, 200);
    const read = await classic.app.inject({
      method: 'GET',
      url: `${API}/my/chat/conversation?con_id=${id}`,
      headers: classic.auth(youssef),
    });
    assert.equal(read.statusCode, 200, read.body);
    const messages = read.json().messages;
    assert.deepEqual(
      messages.map((m: any) => [m.message, Object.keys(m)]),
      [
        ['Hello', ['message_id', 'con_id', 'source_id', 'message', 'is_read', 'created_at']],
        ['corrected', ['message_id', 'con_id', 'source_id', 'message', 'is_read', 'created_at']],
        ['', ['message_id', 'con_id', 'source_id', 'message', 'is_read', 'created_at']],
      ],
    );
  });
});

describe('an erasure of the sender', () => {
  it('forgets their corrections with their words', async () => {
    const before = await sql<{ n: number | string }>`select count(*) as n from message_edits where source_id = ${amina}`.execute(
      t.souk.store.db,
    );
    assert.ok(Number(before.rows[0]!.n) > 0);
    const key = newServerKey();
    assert.ok(await t.souk.store.serverKeys.add('eraser', serverKeyDigest(key), Date.now()));
    await t.souk.serverKeys.refresh();
    const res = await fetch(`${base}/souk/v1/users/${amina}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200, await res.text());
    const after = await sql<{ n: number | string }>`select count(*) as n from message_edits`.execute(t.souk.store.db);
    assert.equal(Number(after.rows[0]!.n), 0);
  });
});
