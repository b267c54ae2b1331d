/**
 * Push notifications: push-notification/register (and add-device) store the caller's Expo token;
 * a new message is pushed once to its recipient's devices, in the plugin's payload, through a real
 * local HTTP server standing in for Expo's push API; not while the recipient streams or has just
 * read the conversation; DeviceNotRegistered drops the token; Expo down then up still delivers, a
 * SIGKILL in between too.
 * On SQLite, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { SseClient } from '../helpers/sse.js';
import { expoReceiver } from '../helpers/expo-receiver.js';
import { until } from '../helpers/until.js';
import { startServerProcess } from '../helpers/processes.js';
import { PUSH_BODY_MAX, RecentViews, pushBody } from '../../src/events/push.js';

const API = '/wp-json/rtcl/v1';
const REGISTER = `${API}/push-notification/register`;
const ADD_DEVICE = `${API}/push-notification/add-device`;
const token = (name: string) => `ExponentPushToken[${name}]`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pushSouk(env: Record<string, string> = {}) {
  const expo = await expoReceiver();
  const t = await startTestSouk({ EXPO_PUSH_URL: expo.url, PUSH_APP_SCHEME: 'souktest', ...env });
  return { t, expo };
}

const register = (t: TestSouk, userId: number, body: unknown, path = REGISTER) => t.post(path, body, t.auth(userId));

/** Every outbox row has been handled (sent, skipped or failed). */
const settled = (t: TestSouk) => async () => (await t.souk.store.pushOutbox!.list(100)).every((d) => d.status !== 'pending');

describe('push-notification/register', () => {
  it('stores the token for the caller and answers what it stored; add-device is the same', async () => {
    const { t } = await pushSouk();
    const reply = await register(t, USERS.amina, { push_token: token('a1'), events: ['chat', 'listing'] });
    assert.equal(reply.statusCode, 200);
    assert.deepEqual(reply.json(), { push_token: token('a1'), events: ['chat', 'listing'] });
    const again = await register(t, USERS.amina, { push_token: token('a2') }, ADD_DEVICE);
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), { push_token: token('a2'), events: [] });
    // Parameters in the query string (N2), a form body with events[], a comma list.
    assert.equal((await t.post(`${REGISTER}?push_token=${encodeURIComponent(token('a3'))}`, '', t.auth(USERS.amina))).statusCode, 200);
    const form = await t.post(REGISTER, `push_token=${encodeURIComponent(token('a4'))}&events[]=chat&events[]=offer`, {
      ...t.auth(USERS.amina),
      'content-type': 'application/x-www-form-urlencoded',
    });
    assert.deepEqual(form.json(), { push_token: token('a4'), events: ['chat', 'offer'] });
    assert.deepEqual((await register(t, USERS.amina, { push_token: token('a5'), events: 'chat, offer' })).json().events, ['chat', 'offer']);
    assert.deepEqual((await t.souk.store.pushDevices!.tokensOf(USERS.amina)).sort(), ['a1', 'a2', 'a3', 'a4', 'a5'].map(token).sort());
  });

  it('refuses a missing or malformed token and a bad event list with N2 messages, and needs a member', async () => {
    const { t } = await pushSouk();
    const tokenMessage = 'push_token is required and must be an Expo push token: ExponentPushToken[...] or ExpoPushToken[...].';
    const eventsMessage = 'events must be a list of at most 20 strings of at most 64 characters.';
    const refused = [
      [{}, tokenMessage],
      [{ push_token: '' }, tokenMessage],
      [{ push_token: null }, tokenMessage],
      [{ push_token: 12 }, tokenMessage],
      [{ push_token: 'not-a-token' }, tokenMessage],
      [{ push_token: 'ExponentPushToken[]' }, tokenMessage],
      [{ push_token: token('ok'), events: [1] }, eventsMessage],
      [{ push_token: token('ok'), events: { a: 1 } }, eventsMessage],
      [{ push_token: token('ok'), events: Array.from({ length: 21 }, (_, i) => `e${i}`) }, eventsMessage],
      [{ push_token: token('ok'), events: ['x'.repeat(65)] }, eventsMessage],
    ] as const;
    for (const [body, message] of refused) {
      const reply = await register(t, USERS.amina, body);
      assert.equal(reply.statusCode, 400, JSON.stringify(body));
      assert.deepEqual(reply.json(), { status: 'error', error: 'BADREQUEST', code: '400', error_message: message }, JSON.stringify(body));
    }
    assert.deepEqual(await t.souk.store.pushDevices!.tokensOf(USERS.amina), []);
    const anonymous = await t.post(REGISTER, { push_token: token('x') }, { 'x-api-key': t.apiKey });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(anonymous.json().error, 'MISSING_AUTHORIZATION_HEADER');
  });

  it("refuses a token another user's live session registered (409); it moves once that session signed out or expired", async () => {
    const { t } = await pushSouk();
    const devices = t.souk.store.pushDevices!;
    const session = t.token(USERS.amina);
    const asAmina = { authorization: `Bearer ${session}`, 'x-api-key': t.apiKey };
    assert.equal((await t.post(REGISTER, { push_token: token('phone') }, asAmina)).statusCode, 200);
    for (const path of [REGISTER, ADD_DEVICE]) {
      const taken = await register(t, USERS.youssef, { push_token: token('phone') }, path);
      assert.equal(taken.statusCode, 409, taken.body);
      assert.deepEqual(taken.json(), {
        status: 'error',
        error: 'PUSH_TOKEN_TAKEN',
        code: '409',
        error_message:
          'This push token is registered to another account, whose session on the device has not ended; it can be registered once that account signs out there.',
      });
    }
    assert.deepEqual(await devices.tokensOf(USERS.amina), [token('phone')]);
    assert.deepEqual(await devices.tokensOf(USERS.youssef), []);
    // Her other sessions may register it again; it stays hers.
    assert.equal((await register(t, USERS.amina, { push_token: token('phone') })).statusCode, 200);
    assert.equal((await register(t, USERS.youssef, { push_token: token('phone') })).statusCode, 409);

    // Signing out unbinds the devices that session registered, and only those.
    assert.equal((await t.post(REGISTER, { push_token: token('tablet') }, asAmina)).statusCode, 200);
    assert.equal((await t.post(`${API}/logout`, {}, asAmina)).statusCode, 200);
    assert.deepEqual(await devices.tokensOf(USERS.amina), [token('phone')]);
    assert.equal((await register(t, USERS.youssef, { push_token: token('tablet') })).statusCode, 200);
    assert.deepEqual(await devices.tokensOf(USERS.youssef), [token('tablet')]);

    // A session that expired no longer holds its device. Its `exp` is in whole seconds, so a 2 s
    // token lives more than 1 s (time for the 409) and has ended by the next second but one.
    const brief = { authorization: `Bearer ${t.token(USERS.amina, { ttl: 2 })}`, 'x-api-key': t.apiKey };
    const endedBy = (Math.floor(Date.now() / 1000) + 2) * 1000;
    assert.equal((await t.post(REGISTER, { push_token: token('old-phone') }, brief)).statusCode, 200);
    assert.equal((await register(t, USERS.youssef, { push_token: token('old-phone') })).statusCode, 409);
    await sleep(endedBy - Date.now() + 50);
    assert.equal((await register(t, USERS.youssef, { push_token: token('old-phone') })).statusCode, 200);
    assert.deepEqual(await devices.tokensOf(USERS.amina), [token('phone')]);
  });

  it('moves a token whose registering session signed out, and keeps a user to PUSH_DEVICES_PER_USER', async () => {
    const { t } = await pushSouk({ PUSH_DEVICES_PER_USER: '2' });
    const devices = t.souk.store.pushDevices!;
    const asAmina = t.auth(USERS.amina);
    await t.post(REGISTER, { push_token: token('shared') }, asAmina);
    await t.post(`${API}/logout`, {}, asAmina);
    await register(t, USERS.youssef, { push_token: token('shared') });
    assert.deepEqual(await devices.tokensOf(USERS.amina), []);
    assert.deepEqual(await devices.tokensOf(USERS.youssef), [token('shared')]);
    for (const name of ['p1', 'p2', 'p3']) {
      assert.equal((await register(t, USERS.amina, { push_token: token(name) })).statusCode, 200);
      await sleep(5);
    }
    // The least recently registered goes; registering one again makes it the newest.
    assert.deepEqual(await devices.tokensOf(USERS.amina), [token('p3'), token('p2')]);
    await register(t, USERS.amina, { push_token: token('p2') });
    await sleep(5);
    await register(t, USERS.amina, { push_token: token('p4') });
    assert.deepEqual(await devices.tokensOf(USERS.amina), [token('p4'), token('p2')]);
    assert.deepEqual(await devices.tokensOf(USERS.youssef), [token('shared')]);
  });

  it('answers 404 when push notifications are off', async () => {
    const { t } = await pushSouk({ PUSH_NOTIFICATIONS: 'false' });
    const reply = await register(t, USERS.amina, { push_token: token('a') });
    assert.equal(reply.statusCode, 404);
    assert.equal(reply.json().code, 'rest_no_route');
  });
});

describe('pushes', () => {
  it('sends one push per new message to the recipient, in the plugin payload, and none for a retry', async () => {
    const { t, expo } = await pushSouk();
    await register(t, USERS.youssef, { push_token: token('youssef-phone') });
    await register(t, USERS.youssef, { push_token: token('youssef-tablet') });
    await register(t, USERS.amina, { push_token: token('amina-phone') });
    // The start records conversation.new and message.new (the plugin pushes twice): one push.
    const started = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Is it still available?', temp_id: 7 })).json();
    await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Is it still available?', temp_id: 7 });
    await until(settled(t));
    await until(() => expo.messages().length >= 2);
    await sleep(300);
    const url = `souktest://conversation/${started.con_id}/${LISTINGS.bike}`;
    assert.equal(expo.requests.length, 1);
    assert.deepEqual(
      expo.messages().sort((a, b) => a.to.localeCompare(b.to)),
      ['youssef-phone', 'youssef-tablet'].map((name) => ({
        to: token(name),
        title: 'Amina K.',
        body: 'Is it still available?',
        data: { url },
        sound: 'default',
      })),
    );
    assert.equal(expo.requests[0]!.headers['content-type'], 'application/json');
    // His answer goes to her, cut to a notification's length.
    const long = 'x'.repeat(300);
    const answer = await t.post(`${API}/my/chat/message`, { con_id: started.con_id, text: long, temp_id: 8 }, t.auth(USERS.youssef));
    assert.equal(answer.statusCode, 200);
    await until(() => expo.messages().length === 3);
    await until(settled(t));
    const last = expo.messages()[2]!;
    assert.deepEqual(last, {
      to: token('amina-phone'),
      title: 'Youssef B.',
      body: `${'x'.repeat(PUSH_BODY_MAX - 1)}…`,
      data: { url },
      sound: 'default',
    });
    const rows = await t.souk.store.pushOutbox!.list(10);
    assert.deepEqual(
      rows.map((r) => r.status),
      ['sent', 'sent'],
    );
  });

  it('pushes nothing for other users: each message goes to its recipient only', async () => {
    const { t, expo } = await pushSouk();
    await register(t, USERS.amina, { push_token: token('amina') });
    await register(t, USERS.youssef, { push_token: token('youssef') });
    await register(t, USERS.sara, { push_token: token('sara') });
    const a = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'to youssef' })).json();
    const s = (await t.start(USERS.sara, { listing_id: LISTINGS.aminasOwn, text: 'to amina' })).json();
    await t.post(`${API}/my/chat/message`, { con_id: a.con_id, text: 'to amina, again' }, t.auth(USERS.youssef));
    await until(() => expo.messages().length >= 3);
    await until(settled(t));
    await sleep(300);
    const byRecipient = expo
      .messages()
      .map((m) => [m.to, m.body])
      .sort();
    assert.deepEqual(byRecipient, [
      [token('amina'), 'to amina'],
      [token('amina'), 'to amina, again'],
      [token('youssef'), 'to youssef'],
    ]);
    assert.ok(s.con_id);
    // A user without a device gets no outbox row at all.
    const users = new Set((await t.souk.store.pushOutbox!.list(100)).map((r) => r.userId));
    assert.deepEqual([...users].sort(), [USERS.amina, USERS.youssef].sort());
  });

  it('pushes nothing while the recipient streams, or read the conversation within 15 s', async () => {
    const { t, expo } = await pushSouk();
    const base = await t.listen();
    await register(t, USERS.youssef, { push_token: token('youssef') });
    await register(t, USERS.amina, { push_token: token('amina') });
    const stream = await SseClient.open(`${base}${API}/my/events`, t.auth(USERS.youssef));
    assert.equal(stream.status, 200);
    await until(() => t.souk.streams!.isStreaming(USERS.youssef));
    const started = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'while you stream' })).json();
    assert.equal((await stream.next()).event, 'conversation.new');
    await until(settled(t));
    assert.deepEqual(
      (await t.souk.store.pushOutbox!.list(10)).map((r) => [r.status, r.lastError]),
      [['skipped', 'conversation in view']],
    );
    stream.close();
    await until(() => !t.souk.streams!.isStreaming(USERS.youssef));
    // She reads the conversation (the apps poll it); his answer is not pushed to her.
    const read = await t.app.inject({
      method: 'GET',
      url: `${API}/my/chat/conversation?con_id=${started.con_id}`,
      headers: t.auth(USERS.amina),
    });
    assert.equal(read.statusCode, 200);
    await t.post(`${API}/my/chat/message`, { con_id: started.con_id, text: 'while you read' }, t.auth(USERS.youssef));
    await until(settled(t));
    assert.equal((await t.souk.store.pushOutbox!.list(10))[0]!.status, 'skipped');
    // Now that he closed his stream, her next message is pushed to him.
    await t.post(`${API}/my/chat/message`, { con_id: started.con_id, text: 'now you are away' }, t.auth(USERS.amina));
    await until(() => expo.messages().length === 1);
    assert.deepEqual(
      expo.messages().map((m) => [m.to, m.body]),
      [[token('youssef'), 'now you are away']],
    );
  });

  it('drops a token Expo answers DeviceNotRegistered for, and keeps the others', async () => {
    const { t, expo } = await pushSouk();
    await register(t, USERS.youssef, { push_token: token('gone') });
    await register(t, USERS.youssef, { push_token: token('alive') });
    expo.state.unregistered.add(token('gone'));
    await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'hello' });
    await until(settled(t));
    assert.deepEqual(await t.souk.store.pushDevices!.tokensOf(USERS.youssef), [token('alive')]);
    const [row] = await t.souk.store.pushOutbox!.list(1);
    assert.equal(row!.status, 'sent');
    assert.match(row!.lastError ?? '', /1 device\(s\) not registered, dropped/);
    assert.ok(!row!.lastError!.includes('gone'), 'the token is not recorded');
  });

  it('drops a token whose receipt says DeviceNotRegistered, asked for PUSH_RECEIPT_DELAY_S after Expo took the push', async () => {
    const { t, expo } = await pushSouk({ PUSH_RECEIPT_DELAY_S: '1' });
    await register(t, USERS.youssef, { push_token: token('uninstalled') });
    await register(t, USERS.youssef, { push_token: token('alive') });
    expo.state.uninstalled.add(token('uninstalled'));
    await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'hello' });
    await until(settled(t));
    // Both tickets were accepted: both devices stay until the receipts are read.
    assert.equal(expo.messages().length, 2);
    assert.deepEqual((await t.souk.store.pushDevices!.tokensOf(USERS.youssef)).sort(), [token('alive'), token('uninstalled')]);
    assert.deepEqual(expo.receiptRequests, []);
    await until(async () => (await t.souk.store.pushDevices!.tokensOf(USERS.youssef)).length === 1, 10_000);
    assert.deepEqual(await t.souk.store.pushDevices!.tokensOf(USERS.youssef), [token('alive')]);
    assert.deepEqual(expo.receiptRequests.flat().sort(), ['ticket-1-0', 'ticket-1-1']);
  });

  it('pushes after a SIGKILL that came between the message and its push', async () => {
    const expo = await expoReceiver();
    expo.state.mode = 'down';
    // The in-process Souk makes the database and the fixture, and pushes nothing; processes serve it.
    const t = await startTestSouk({ PUSH_NOTIFICATIONS: 'false' });
    // A short timeout keeps the killed process's lease (the timeout and a second) short.
    const env = {
      DATABASE_URL: t.database.url,
      SITE_URL: t.config.siteUrl,
      EXPO_PUSH_URL: expo.url,
      PUSH_RETRY_BASE_MS: '100',
      PUSH_TIMEOUT_MS: '1000',
    };
    const first = await startServerProcess(env);
    const post = (path: string, userId: number, body: unknown) =>
      fetch(`${first.base}${path}`, {
        method: 'POST',
        headers: { ...t.auth(userId), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    assert.equal((await post(REGISTER, USERS.youssef, { push_token: token('youssef') })).status, 200);
    assert.equal(
      (await post(`${API}/my/chat/conversation`, USERS.amina, { listing_id: LISTINGS.bike, text: 'before the crash' })).status,
      200,
    );
    await until(() => expo.state.refused >= 1);
    await first.stop('SIGKILL');
    expo.state.mode = 'ok';
    await startServerProcess(env);
    await until(() => expo.messages().length >= 1, 15_000);
    await sleep(300);
    assert.deepEqual(
      expo.messages().map((m) => [m.to, m.body]),
      [[token('youssef'), 'before the crash']],
    );
  });

  it('retries while Expo is down and delivers once it is back', async () => {
    const { t, expo } = await pushSouk({ PUSH_RETRY_BASE_MS: '100' });
    expo.state.mode = 'down';
    await register(t, USERS.youssef, { push_token: token('youssef') });
    await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'are you there?' });
    await until(async () => (await t.souk.store.pushOutbox!.list(1))[0]!.attempts >= 2);
    const [failing] = await t.souk.store.pushOutbox!.list(1);
    assert.equal(failing!.status, 'pending');
    assert.match(failing!.lastError ?? '', /HTTP 503: UNAVAILABLE down/);
    assert.equal(expo.messages().length, 0);
    expo.state.mode = 'ok';
    await until(settled(t));
    await sleep(300);
    assert.deepEqual(
      expo.messages().map((m) => [m.to, m.body]),
      [[token('youssef'), 'are you there?']],
    );
    assert.equal((await t.souk.store.pushOutbox!.list(1))[0]!.status, 'sent');
  });

  it('keeps a failed push as failed once PUSH_RETRY_FOR_S has passed', async () => {
    const { t, expo } = await pushSouk({ PUSH_RETRY_BASE_MS: '600', PUSH_RETRY_FOR_S: '1' });
    expo.state.mode = 'down';
    await register(t, USERS.youssef, { push_token: token('youssef') });
    await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'lost in time' });
    await until(settled(t), 10_000);
    const [row] = await t.souk.store.pushOutbox!.list(1);
    assert.equal(row!.status, 'failed');
    assert.equal(expo.messages().length, 0);
  });
});

describe('push helpers', () => {
  it('counts a read as in view for 15 s, and forgets the oldest beyond its bound', () => {
    const views = new RecentViews(15_000, 3);
    views.viewed(1, 10, 1000);
    assert.equal(views.recent(1, 10, 15_999), true);
    assert.equal(views.recent(1, 10, 16_000), false);
    assert.equal(views.recent(2, 10, 2000), false);
    assert.equal(views.recent(1, 11, 2000), false);
    views.viewed(1, 11, 1000);
    views.viewed(1, 12, 1000);
    views.viewed(1, 10, 1500);
    views.viewed(1, 13, 1500);
    assert.equal(views.size, 3);
    // 1:11 was the least recently read.
    assert.equal(views.recent(1, 11, 2000), false);
    assert.equal(views.recent(1, 10, 2000), true);
  });

  it('cuts a body on whole characters and names attachments when there is no text', () => {
    assert.equal(pushBody({ text: '  hi  ', attachments: null }), 'hi');
    assert.equal(pushBody({ text: '😀'.repeat(200), attachments: null }), `${'😀'.repeat(PUSH_BODY_MAX - 1)}…`);
    assert.equal(pushBody({ text: '', attachments: [{ url: 'https://x.example/a.png' }] as never }), 'Sent a file');
    assert.equal(pushBody({ text: '', attachments: [{}, {}] as never }), 'Sent 2 files');
    // Uploaded files (docs/files.md): "Photo", or the document's name.
    const photo = { url: 'https://s.example/files/chat/a.jpg', type: 'image', mimeType: 'image/jpeg', name: 'IMG_1.jpg', size: 1 } as const;
    const invoice = {
      url: 'https://s.example/files/chat/b.pdf',
      type: 'file',
      mimeType: 'application/pdf',
      name: 'invoice.pdf',
      size: 1,
    } as const;
    assert.equal(pushBody({ text: '', attachments: [photo] }), 'Photo');
    assert.equal(pushBody({ text: '', attachments: [photo, photo] }), '2 photos');
    assert.equal(pushBody({ text: '', attachments: [invoice] }), 'invoice.pdf');
    assert.equal(pushBody({ text: '', attachments: [photo, invoice] }), 'invoice.pdf (+1)');
    assert.equal(pushBody({ text: 'look', attachments: [photo] }), 'look');
    // A voice message (docs/files.md, "Voice messages and audio").
    const voice = {
      url: 'https://s.example/files/chat/c.m4a',
      type: 'audio',
      mimeType: 'audio/mp4',
      name: 'voice.m4a',
      size: 1,
      duration: 3.2,
    } as const;
    assert.equal(pushBody({ text: '', attachments: [voice] }), 'Voice message');
  });
});
