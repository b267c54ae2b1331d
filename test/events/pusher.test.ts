/**
 * Live events on the site's Pusher app (docs/pusher.md): the real pusher-js client, subscribed as
 * the plugin's web page subscribes (the app's key and cluster, then `chat-user-{id}`), receives
 * what Souk stores through a Pusher-protocol server on a loopback port (test/helpers/pusher-server.ts),
 * in the plugin's names, channels, field order and JSON types, each event once; private channels
 * are authorized by POST pusher/auth and nothing else; Pusher down, slow or refusing loses nothing
 * and slows no request.
 * On SQLite, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import PusherJs from 'pusher-js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS, marketplace } from '../helpers/fixtures.js';
import { channelAuth, pusherServer, type PusherTestServer } from '../helpers/pusher-server.js';
import { until } from '../helpers/until.js';
import { removeMessage } from '../../src/domain/moderation.js';

// pusher-js's node build exports the class itself; its types describe an ES module's default.
const Pusher = PusherJs as unknown as typeof PusherJs.default;

const API = '/wp-json/rtcl/v1';
const MESSAGE = `${API}/my/chat/message`;
const CONVERSATION = `${API}/my/chat/conversation`;

interface Received {
  name: string;
  channel: string;
  data: any;
}

/** pusher-js as the plugin's web chat opens it: `new Pusher(app_key, {cluster})`, then `subscribe('chat-user-' + id)`. */
async function webPage(
  server: PusherTestServer,
  userId: number,
  o: { channel?: string; authEndpoint?: string; headers?: Record<string, string> } = {},
) {
  const client = new Pusher(server.app.key, {
    cluster: 'mt1',
    // The test server stands in for Pusher's own host.
    wsHost: '127.0.0.1',
    wsPort: server.port,
    forceTLS: false,
    enabledTransports: ['ws'],
    ...(o.authEndpoint && { channelAuthorization: { endpoint: o.authEndpoint, transport: 'ajax', headers: o.headers ?? {} } }),
  });
  const name = o.channel ?? `chat-user-${userId}`;
  const channel = client.subscribe(name);
  const received: Received[] = [];
  channel.bind_global((event: string, data: unknown) => {
    if (!event.startsWith('pusher:')) received.push({ name: event, channel: name, data });
  });
  const outcome = await new Promise<'subscribed' | 'refused'>((resolve) => {
    channel.bind('pusher:subscription_succeeded', () => resolve('subscribed'));
    channel.bind('pusher:subscription_error', () => resolve('refused'));
    client.connection.bind('error', () => resolve('refused'));
  });
  return { client, received, outcome, close: () => client.disconnect() };
}

async function pusherSouk(env: Record<string, string> = {}) {
  const server = await pusherServer();
  const t = await startTestSouk({ PUSHER_URL: server.url, PUSHER_CLUSTER: 'mt1', PUSHER_RETRY_BASE_MS: '50', ...env });
  return { t, server };
}

const put = (t: TestSouk, userId: number, url: string) => t.app.inject({ method: 'PUT', url, headers: t.auth(userId) });

/** Waits until the page has `n` events, then hands over the new ones. */
async function next(page: { received: Received[] }, seen: { n: number }, count: number) {
  await until(() => page.received.length >= seen.n + count);
  const got = page.received.slice(seen.n, seen.n + count);
  seen.n += count;
  return got;
}

const keys = (o: object) => Object.keys(o);
const MESSAGE_KEYS = ['message_id', 'con_id', 'source_id', 'message', 'meta', 'attachments', 'type', 'is_read', 'created_at'];

/** The web chat's own tests of a message (rtcl-chat.min.js): strict comparisons with integers. */
function assertWebMessage(m: any, expected: { conId: number; sourceId: number; isRead: 0 | 1; type: string }) {
  assert.deepEqual(keys(m), MESSAGE_KEYS);
  for (const k of ['message_id', 'con_id', 'source_id', 'is_read']) assert.equal(typeof m[k], 'number', k);
  assert.ok(m.con_id === expected.conId, 'e.message.con_id === parseInt(con_id)');
  assert.equal(m.source_id, expected.sourceId);
  assert.equal(m.is_read, expected.isRead);
  assert.equal(m.type, expected.type);
  assert.match(m.created_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
}

describe('Pusher: what the web chat receives', () => {
  it('a whole exchange: names, channels, types, each once, as the web JS tests them', async () => {
    const { t, server } = await pusherSouk();
    const buyer = await webPage(server, USERS.amina);
    const owner = await webPage(server, USERS.youssef);
    const stranger = await webPage(server, USERS.sara);
    assert.deepEqual([buyer.outcome, owner.outcome], ['subscribed', 'subscribed']);
    const b = { n: 0 };
    const o = { n: 0 };

    // The start: the new conversation for both, the message and the unread count for the owner only.
    const started = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Is it available?' })).json();
    const conId: number = started.con_id;
    const [buyerNew] = await next(buyer, b, 1);
    const [ownerNew, first, firstUnread] = await next(owner, o, 3);
    assert.deepEqual(
      [buyerNew!.name, ownerNew!.name, first!.name, firstUnread!.name],
      ['conversation.new', 'conversation.new', 'message.new', 'conversation.unread'],
    );
    for (const [e, unread] of [
      [buyerNew!, 0],
      [ownerNew!, 1],
    ] as const) {
      const c = e.data.conversation;
      assert.deepEqual(keys(c), [
        'con_id',
        'listing',
        'unread_count',
        'sender',
        'recipient',
        'listing_id',
        'sender_id',
        'recipient_id',
        'sender_delete',
        'recipient_delete',
        'last_message_id',
        'sender_review',
        'recipient_review',
        'invert_review',
        'created_at',
        'updated_at',
        'last_message',
        'last_message_created_at',
      ]);
      assert.equal(c.con_id, conId);
      assert.equal(c.unread_count, unread);
      assert.deepEqual(keys(c.listing), ['id', 'title', 'url', 'images', 'amount', 'raw_price', 'location', 'category']);
      // Public channels: no e-mail, phone or WhatsApp of either participant.
      assert.deepEqual(keys(c.sender), ['id', 'name', 'website', 'profile_picture']);
      assert.deepEqual(c.recipient, {
        id: USERS.youssef,
        name: 'Youssef B.',
        website: 'https://y.example',
        profile_picture: 'https://cdn.example/y.png',
      });
      assert.deepEqual(
        [c.sender_id, c.recipient_id, c.sender_delete, c.last_message_id],
        [USERS.amina, USERS.youssef, false, started.last_message_id],
      );
      assert.equal(c.last_message, 'Is it available?');
    }
    assertWebMessage(first!.data.message, { conId, sourceId: USERS.amina, isRead: 0, type: 'text' });
    // The owner's web page shows it: not their own, and the open conversation's.
    assert.ok(first!.data.message.source_id !== USERS.youssef);
    assert.deepEqual(firstUnread!.data, { user_id: USERS.youssef, count: 1, conversation_id: conId });

    // Answers both ways: the message and the reader's whole unread count (the header badge).
    const answer = (await t.post(MESSAGE, { con_id: conId, listing_id: LISTINGS.bike, text: 'Yes' }, t.auth(USERS.youssef))).json();
    const [answerNew, answerUnread] = await next(buyer, b, 2);
    assert.equal(answerNew!.name, 'message.new');
    assertWebMessage(answerNew!.data.message, { conId, sourceId: USERS.youssef, isRead: 0, type: 'text' });
    assert.equal(answerNew!.data.message.message_id, answer.message_id);
    assert.deepEqual(
      [answerUnread!.name, answerUnread!.data],
      ['conversation.unread', { user_id: USERS.amina, count: 1, conversation_id: conId }],
    );
    const again = (await t.post(MESSAGE, { con_id: conId, listing_id: LISTINGS.bike, text: 'Great' }, t.auth(USERS.amina))).json();
    const [againNew, againUnread] = await next(owner, o, 2);
    assert.equal(againNew!.data.message.message_id, again.message_id);
    assert.deepEqual(againUnread!.data, { user_id: USERS.youssef, count: 2, conversation_id: conId });

    // The REST mark-read: message.update to both (the plugin sends it only from its web page), the reader's count.
    assert.equal((await put(t, USERS.youssef, `${MESSAGE}?con_id=${conId}&message_id=${again.message_id}`)).body, '1');
    const [receipt] = await next(buyer, b, 1);
    const [ownCopy, readUnread] = await next(owner, o, 2);
    for (const e of [receipt!, ownCopy!]) {
      assert.equal(e.name, 'message.update');
      assertWebMessage(e.data.message, { conId, sourceId: USERS.amina, isRead: 1, type: 'text' });
      assert.equal(e.data.message.message_id, again.message_id);
    }
    assert.deepEqual(
      [readUnread!.name, readUnread!.data],
      ['conversation.unread', { user_id: USERS.youssef, count: 0, conversation_id: conId }],
    );

    // A photo: its real type (the plugin always says text) and its file.
    const file = { url: 'https://cdn.example/bike.jpg', name: 'bike.jpg', mime_type: 'image/jpeg', size: 2048 };
    const photo = (
      await t.post(MESSAGE, { con_id: conId, listing_id: LISTINGS.bike, text: '', files: [file] }, t.auth(USERS.amina))
    ).json();
    const [photoNew] = await next(owner, o, 2);
    assertWebMessage(photoNew!.data.message, { conId, sourceId: USERS.amina, isRead: 0, type: 'attachment' });
    assert.deepEqual(photoNew!.data.message.attachments, [file]);

    // A moderator's delete: message.removed to both, which the web chat drops from the open thread.
    assert.ok((await removeMessage(t.souk.store, photo.message_id)).ok);
    const [buyerRemoved] = await next(buyer, b, 1);
    const [ownerRemoved] = await next(owner, o, 1);
    for (const e of [buyerRemoved!, ownerRemoved!]) {
      assert.equal(e.name, 'message.removed');
      assert.equal(e.data.message.message_id, photo.message_id);
      assert.ok(e.data.message.con_id === conId);
    }

    // The sender corrects a message (message.update with the new text, to both), then takes it back (message.removed, to both).
    const typo = (await t.post(MESSAGE, { con_id: conId, text: 'Tpyo' }, t.auth(USERS.amina))).json();
    await next(owner, o, 2);
    const own = (method: 'PATCH' | 'DELETE', url: string, body: unknown) =>
      t.app.inject({ method, url, headers: { ...t.auth(USERS.amina), 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    assert.equal((await own('PATCH', MESSAGE, { con_id: conId, message_id: typo.message_id, text: 'Typo' })).statusCode, 200);
    for (const [page, seen] of [
      [buyer, b],
      [owner, o],
    ] as const) {
      const [e] = await next(page, seen, 1);
      assert.deepEqual([e!.name, e!.data.message.message_id, e!.data.message.message], ['message.update', typo.message_id, 'Typo']);
    }
    assert.equal((await own('DELETE', `${MESSAGE}?con_id=${conId}&message_id=${typo.message_id}`, {})).statusCode, 200);
    for (const [page, seen] of [
      [buyer, b],
      [owner, o],
    ] as const) {
      const [e] = await next(page, seen, 1);
      assert.deepEqual([e!.name, e!.data.message.message_id, e!.data.message.message], ['message.removed', typo.message_id, '']);
    }

    // A leave: the conversation leaves the leaver's own lists; the other participant still has it.
    const left = await t.app.inject({ method: 'DELETE', url: `${CONVERSATION}?con_id=${conId}`, headers: t.auth(USERS.youssef) });
    assert.equal(left.body, '1');
    const [removed] = await next(owner, o, 1);
    assert.deepEqual([removed!.name, removed!.data], ['conversation.removed', { conversation: { con_id: conId } }]);

    // Once each, and nothing for anyone else.
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(
      buyer.received.map((e) => e.name),
      ['conversation.new', 'message.new', 'conversation.unread', 'message.update', 'message.removed', 'message.update', 'message.removed'],
    );
    assert.deepEqual(
      owner.received.map((e) => e.name),
      [
        'conversation.new',
        'message.new',
        'conversation.unread',
        'message.new',
        'conversation.unread',
        'message.update',
        'conversation.unread',
        'message.new',
        'conversation.unread',
        'message.removed',
        'message.new',
        'conversation.unread',
        'message.update',
        'message.removed',
        'conversation.removed',
      ],
    );
    assert.deepEqual(stranger.received, []);
    assert.deepEqual(server.refused, []);
    // batch_events, at most 10 events each.
    assert.ok(server.requests.every((r) => r.path.endsWith('/batch_events') && r.events <= 10));
    const sent = await t.souk.store.pusherOutbox!.list({ limit: 100 });
    assert.equal(sent.length, 22);
    assert.ok(sent.every((d) => d.status === 'sent' && d.sentAt !== null));
    for (const page of [buyer, owner, stranger]) page.close();
  });

  it('GET config names the app key and cluster; without Pusher there is no chat.pusher and nothing is recorded', async () => {
    const { t } = await pusherSouk();
    const config = await t.app.inject({ method: 'GET', url: `${API}/config`, headers: { 'x-api-key': t.apiKey } });
    assert.deepEqual(config.json().chat.pusher, { app_key: 'souk-test-key', app_cluster: 'mt1' });
    const off = await startTestSouk();
    const plain = await off.app.inject({ method: 'GET', url: `${API}/config`, headers: { 'x-api-key': off.apiKey } });
    assert.equal(plain.json().chat.pusher, undefined);
    await off.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' });
    assert.equal(off.souk.pusher, undefined);
    assert.deepEqual(await off.souk.store.pusherOutbox!.list({ limit: 10 }), []);
  });
});

describe('Pusher: private channels (PUSHER_CHANNELS=private)', () => {
  it('publishes to private-chat-user-{id}, which pusher-js may join through POST pusher/auth for its own user only', async () => {
    const { t, server } = await pusherSouk({ PUSHER_CHANNELS: 'private' });
    const base = await t.listen();
    const authEndpoint = `${base}${API}/pusher/auth`;
    const own = await webPage(server, USERS.amina, { channel: 'private-chat-user-1', authEndpoint, headers: t.auth(USERS.amina) });
    assert.equal(own.outcome, 'subscribed');
    // Another user's channel: Souk refuses to authorize it, and without its auth the server refuses the subscription.
    const prying = await webPage(server, USERS.sara, { channel: 'private-chat-user-1', authEndpoint, headers: t.auth(USERS.sara) });
    assert.equal(prying.outcome, 'refused');
    // The public channel the plugin's pages listen to gets nothing any more.
    const publicPage = await webPage(server, USERS.amina);

    const conId = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json().con_id;
    await t.post(MESSAGE, { con_id: conId, listing_id: LISTINGS.bike, text: 'Yes' }, t.auth(USERS.youssef));
    await until(() => own.received.length >= 3);
    assert.deepEqual(
      own.received.map((e) => [e.name, e.channel]),
      [
        ['conversation.new', 'private-chat-user-1'],
        ['message.new', 'private-chat-user-1'],
        ['conversation.unread', 'private-chat-user-1'],
      ],
    );
    await until(async () => (await t.souk.store.pusherOutbox!.list({ limit: 10 })).every((d) => d.status === 'sent'));
    assert.deepEqual(publicPage.received, []);
    assert.deepEqual(prying.received, []);
    // pusher-js gave up at Souk's 403: it never asked the server with an auth of its own making.
    assert.deepEqual(server.refusedSubscriptions, []);
    assert.ok(server.events.every((e) => e.channel.startsWith('private-chat-user-')));
    for (const page of [own, prying, publicPage]) page.close();
  });

  it("POST pusher/auth answers the signature of the caller's own channel, 403 for any other, 400 for bad input, 401 without a token", async () => {
    const { t, server } = await pusherSouk({ PUSHER_CHANNELS: 'private' });
    const AUTH = `${API}/pusher/auth`;
    const form = { ...t.auth(USERS.amina), 'content-type': 'application/x-www-form-urlencoded' };
    const ok = await t.post(AUTH, 'socket_id=1234.1234&channel_name=private-chat-user-1', form);
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json(), { auth: channelAuth(server.app, '1234.1234', 'private-chat-user-1') });
    const forbidden = { code: 'FORBIDDEN', message: 'You are not permitted to subscribe to this channel.' };
    for (const channel of ['private-chat-user-2', 'chat-user-1', 'private-chat-user-1x', 'presence-chat-user-1']) {
      const reply = await t.post(AUTH, `socket_id=1234.1234&channel_name=${channel}`, form);
      assert.equal(reply.statusCode, 403, channel);
      assert.deepEqual(reply.json(), forbidden);
    }
    const bad = (message: string) => ({ status: 'error', error: 'BADREQUEST', code: '400', error_message: message });
    const socketMessage = 'socket_id is required and must be a Pusher socket id (two numbers joined by a dot).';
    for (const [body, message] of [
      ['channel_name=private-chat-user-1', socketMessage],
      ['socket_id=abc&channel_name=private-chat-user-1', socketMessage],
      ['socket_id=1.1', 'channel_name is required.'],
    ] as const) {
      const reply = await t.post(AUTH, body, form);
      assert.equal(reply.statusCode, 400, body);
      assert.deepEqual(reply.json(), bad(message));
    }
    // JSON bodies too, as every route reads them.
    assert.equal((await t.post(AUTH, { socket_id: '1.2', channel_name: 'private-chat-user-1' }, t.auth(USERS.amina))).statusCode, 200);
    const anonymous = await t.post(AUTH, 'socket_id=1.2&channel_name=private-chat-user-1', {
      'x-api-key': t.apiKey,
      'content-type': 'application/x-www-form-urlencoded',
    });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(anonymous.json().error, 'MISSING_AUTHORIZATION_HEADER');
  });

  it('is not offered with public channels (404)', async () => {
    const { t } = await pusherSouk();
    const reply = await t.post(`${API}/pusher/auth`, { socket_id: '1.2', channel_name: 'private-chat-user-1' }, t.auth(USERS.amina));
    assert.equal(reply.statusCode, 404);
    assert.equal(reply.json().code, 'rest_no_route');
  });
});

describe('Pusher: the start-up warning', () => {
  it('says once that public channels can be read by anyone with the key; not with private channels or without Pusher', async () => {
    const server = await pusherServer();
    for (const [env, expected] of [
      [{ PUSHER_URL: server.url }, 1],
      [{ PUSHER_URL: server.url, PUSHER_CHANNELS: 'private' }, 0],
      [{}, 0],
    ] as const) {
      const lines: string[] = [];
      const t = await startTestSouk({ LOG_LEVEL: 'warn', ...env }, marketplace(), {
        logDestination: { write: (line) => lines.push(line) },
      });
      await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' });
      const warned = lines.filter((l) => l.includes('Pusher events go to public channels'));
      assert.equal(warned.length, expected, JSON.stringify(env));
      assert.ok(lines.every((l) => !l.includes(server.app.secret)));
      await t.close();
    }
  });
});
