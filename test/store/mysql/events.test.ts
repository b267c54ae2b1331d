/**
 * Events on a WordPress database (the MySQL store), each test on a database of its own: two
 * `souk serve` processes on one site, an event written through either reaching the streams held
 * by both (the other instance's by polling the log), once and in order; Last-Event-ID replay and
 * the reset past the retention; tickets taken on another instance; each user's own events only;
 * the webhook outbox delivered signed (and `souk webhooks` over it); a push to a registered
 * device through a local stand-in for Expo, and through FCM beside it (each device once when one
 * of them has to wait).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { runCli as cli } from '../../helpers/cli.js';
import { startServerProcess, type ServerProcess } from '../../helpers/processes.js';
import { PATHS, startTestSouk, type TestSouk } from '../../helpers/souk.js';
import { SseClient, type SseEvent } from '../../helpers/sse.js';
import { until } from '../../helpers/until.js';
import { webhookReceiver } from '../../helpers/webhook-receiver.js';
import { expoReceiver } from '../../helpers/expo-receiver.js';
import { fcmReceiver, fcmToken } from '../../helpers/fcm-receiver.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';
import type { WordpressDatabase } from '../../helpers/wordpress.js';
import { markRead } from '../../../src/domain/chat/message.js';

const JWT_SECRET = 'souk-mysql-events-test-secret-0123456789';
const API = '/wp-json/rtcl/v1';
const EVENTS = `${API}/my/events`;
const MESSAGE = `${API}/my/chat/message`;
const { alice: ALICE, bob: BOB, carol: CAROL } = SITE_USERS;
const { iphone: IPHONE, laptop: LAPTOP } = SITE_LISTINGS;
const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';

interface Site {
  t: TestSouk;
  site: WordpressDatabase;
  env: Record<string, string>;
}

/** A site's database with Souk's tables made by an in-process Souk, which signs the tokens. */
async function site(env: Record<string, string> = {}): Promise<Site> {
  const db = await wordpressDatabase('wordpress-seeded.sql');
  const all = { DATABASE_URL: db.url, JWT_SECRET, ...env };
  return { t: await startTestSouk(all, null), site: db, env: all };
}

const auth = (t: TestSouk, userId: number) => ({
  authorization: `Bearer ${t.token(userId, { login: SITE_LOGINS[userId] })}`,
  'x-api-key': t.apiKey,
});

async function post(base: string, path: string, headers: Record<string, string>, body: unknown): Promise<any> {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text);
}

/**
 * The user's stream from the start of their log: Last-Event-ID 0 replays every event, so none
 * written while the stream opens is missed.
 */
async function stream(base: string, headers: Record<string, string>, lastEventId = '0') {
  const client = await SseClient.open(base + EVENTS, { ...headers, 'last-event-id': lastEventId });
  assert.equal(client.status, 200, client.body);
  return client;
}

const data = (e: SseEvent) => JSON.parse(e.data) as any;
/** What a test compares of an event: its id, name, and the message text or the unread count. */
const brief = (e: SseEvent) => {
  const d = data(e);
  return `${e.id} ${e.event} ${d.message?.message ?? d.count ?? d.conversation?.con_id ?? ''}`;
};

describe('event streams on MySQL', { skip }, () => {
  it('an event written through one instance reaches the streams of both, exactly once and in order', async () => {
    const { t, env } = await site();
    const servers = await Promise.all([startServerProcess({ ...env, EVENTS_POLL_MS: '50' }), startServerProcess(env)]);
    const [a, b] = servers.map((s: ServerProcess) => s.base) as [string, string];
    // Bob streams on both instances: one hears of the writes through its own commits and the poll, the other through the poll.
    const onA = await stream(a, auth(t, BOB));
    const onB = await stream(b, auth(t, BOB));
    const started = await post(a, PATHS.start, auth(t, ALICE), { listing_id: IPHONE, text: 'hello' });
    const conId = started.con_id as number;
    // Written through both instances in turn, each answered before the next is sent.
    for (let i = 1; i <= 6; i++) await post(i % 2 ? b : a, MESSAGE, auth(t, ALICE), { con_id: conId, text: `m${i}` });
    const expected = [`1 conversation.new ${conId}`, '2 message.new hello', '3 conversation.unread 1'];
    for (let i = 1; i <= 6; i++) expected.push(`${2 + 2 * i} message.new m${i}`, `${3 + 2 * i} conversation.unread ${i + 1}`);
    assert.deepEqual((await onA.take(expected.length, 15_000)).map(brief), expected);
    assert.deepEqual((await onB.take(expected.length, 15_000)).map(brief), expected);
    // Nothing was sent twice: the next event on each stream is the next one written.
    await post(b, MESSAGE, auth(t, ALICE), { con_id: conId, text: 'last' });
    assert.equal(brief(await onA.next(15_000)), '16 message.new last');
    assert.equal(brief(await onB.next(15_000)), '16 message.new last');
    onA.close();
    onB.close();
  });

  it("counts a read receipt's unread messages once the reader's log is free: one logged for them meanwhile is counted", async () => {
    const { t, site: wp } = await site();
    const conId = (await t.post(PATHS.start, { listing_id: IPHONE, text: 'one' }, auth(t, ALICE))).json().con_id as number;
    const [first] = await wp.query<{ id: number }>('select max(message_id) as id from wp_rtcl_conversation_messages where con_id = ?', [
      conId,
    ]);
    // Another message from Alice, halfway through its unit of work (READ COMMITTED, as Souk's): stored, Bob's log held, not committed.
    await wp.query('set session transaction isolation level read committed');
    await wp.query('begin');
    await wp.query("insert into wp_rtcl_conversation_messages (con_id, source_id, message, is_read) values (?, ?, 'two', 0)", [
      conId,
      ALICE,
    ]);
    await wp.query('select seq from wp_souk_event_sequences where user_id = ? for update', [BOB]);
    const read = markRead(t.souk.store, BOB, conId, Number(first!.id));
    // Until the receipt's unit of work waits on the log (MariaDB lists the waiting statement, not the lock).
    const waiting =
      "select count(*) as n from information_schema.processlist where id <> connection_id() and info like '%souk_event_sequences%'";
    await until(async () => Number((await wp.query<{ n: number }>(waiting))[0]!.n) > 0);
    await wp.query('commit');
    assert.deepEqual(await read, { ok: true, changed: true });
    const counts = (await t.souk.store.eventLog!.after(BOB, 0, 100))
      .filter((e) => e.type === 'conversation.unread')
      .map((e) => (JSON.parse(e.payload) as { count: number }).count);
    assert.deepEqual(counts, [1, 1], "the start's count, then the receipt's: 'two' is unread");
  });

  it('replays after Last-Event-ID, on any instance, and resets past the retention; a ticket opens a stream on another instance', async () => {
    const { t, env } = await site();
    const [a, b] = (await Promise.all([startServerProcess(env), startServerProcess(env)])).map((s) => s.base) as [string, string];
    const conId = (await post(a, PATHS.start, auth(t, ALICE), { listing_id: IPHONE, text: 'one' })).con_id as number;
    await post(a, MESSAGE, auth(t, ALICE), { con_id: conId, text: 'two' });
    await post(a, MESSAGE, auth(t, ALICE), { con_id: conId, text: 'three' });
    const replayed = await stream(b, auth(t, BOB), '3');
    assert.deepEqual((await replayed.take(4)).map(brief), [
      '4 message.new two',
      '5 conversation.unread 2',
      '6 message.new three',
      '7 conversation.unread 3',
    ]);
    replayed.close();

    // A ticket asked of one instance opens the stream on the other, once.
    const { ticket } = await post(a, `${API}/my/events/ticket`, auth(t, BOB), {});
    const byTicket = await SseClient.open(`${b}${EVENTS}?ticket=${encodeURIComponent(ticket)}&last_event_id=6`);
    assert.equal(byTicket.status, 200, byTicket.body);
    assert.equal(brief(await byTicket.next()), '7 conversation.unread 3');
    byTicket.close();
    assert.equal((await SseClient.open(`${b}${EVENTS}?ticket=${encodeURIComponent(ticket)}`)).status, 401);

    // Past the retention the log no longer holds what the client missed: it is told to reload.
    assert.ok((await t.souk.store.eventLog!.prune(Date.now() + 1)) >= 7);
    const late = await stream(a, auth(t, BOB), '3');
    const reset = await late.next();
    assert.equal(reset.event, 'reset');
    assert.deepEqual(data(reset), { last_event_id: 7 });
    // And from there it carries on, numbering where the pruned events left off.
    await post(b, MESSAGE, auth(t, ALICE), { con_id: conId, text: 'four' });
    assert.equal(brief(await late.next(15_000)), '8 message.new four');
    late.close();
  });

  it("never sends a user another's events", async () => {
    const { t, env } = await site();
    const [a, b] = (await Promise.all([startServerProcess(env), startServerProcess(env)])).map((s) => s.base) as [string, string];
    const bob = await stream(b, auth(t, BOB));
    const carol = await stream(a, auth(t, CAROL));
    const alice = await stream(b, auth(t, ALICE));
    const withBob = (await post(a, PATHS.start, auth(t, ALICE), { listing_id: IPHONE, text: 'for bob' })).con_id as number;
    const withCarol = (await post(b, PATHS.start, auth(t, ALICE), { listing_id: LAPTOP, text: 'for carol' })).con_id as number;
    for (let i = 0; i < 3; i++) {
      await post(a, MESSAGE, auth(t, ALICE), { con_id: withCarol, text: `carol ${i}` });
      await post(b, MESSAGE, auth(t, ALICE), { con_id: withBob, text: `bob ${i}` });
    }
    // Bob answers: the one event of Alice's own.
    await post(a, MESSAGE, auth(t, BOB), { con_id: withBob, text: 'from bob' });
    const conversationOf = (e: SseEvent) => data(e).message?.con_id ?? data(e).conversation_id ?? data(e).conversation?.con_id;
    const bobs = await bob.take(9, 15_000);
    const carols = await carol.take(9, 15_000);
    assert.ok(
      bobs.every((e) => conversationOf(e) === withBob && (data(e).user_id ?? BOB) === BOB),
      JSON.stringify(bobs),
    );
    assert.ok(
      carols.every((e) => conversationOf(e) === withCarol && (data(e).user_id ?? CAROL) === CAROL),
      JSON.stringify(carols),
    );
    assert.deepEqual((await alice.take(2, 15_000)).map(brief), ['1 message.new from bob', '2 conversation.unread 1']);
    // The next event of each is their own next one, not anyone else's.
    await post(b, MESSAGE, auth(t, ALICE), { con_id: withCarol, text: 'carol last' });
    await post(a, MESSAGE, auth(t, ALICE), { con_id: withBob, text: 'bob last' });
    assert.equal(brief(await carol.next(15_000)), '10 message.new carol last');
    assert.equal(brief(await bob.next(15_000)), '10 message.new bob last');
    for (const c of [bob, carol, alice]) c.close();
  });
});

describe('webhooks and pushes on MySQL', { skip }, () => {
  it('delivers every event signed from the outbox, and souk webhooks lists and replays it', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const hooks = await webhookReceiver(secret);
    const { t, env } = await site({ WEBHOOK_URLS: hooks.url, WEBHOOK_SECRET: secret });
    await t.toggle(ALICE, { listing_id: IPHONE });
    const started = (await t.start(ALICE, { listing_id: IPHONE, text: 'is it still available?' })).json();
    await hooks.waitFor(4);
    assert.deepEqual(hooks.received.map((r) => r.body.type).sort(), [
      'conversation.new',
      'conversation.unread',
      'favourite.added',
      'message.new',
    ]);
    const newMessage = hooks.received.find((r) => r.body.type === 'message.new')!.body;
    assert.equal(newMessage.user_id, BOB);
    assert.deepEqual(newMessage.data, { message: started.newMessage });
    const outbox = t.souk.store.webhooks!;
    await until(async () => (await outbox.list({ status: 'delivered', limit: 10 })).length === 4);

    // The CLI on the same database: the deliveries listed, and sent again with their webhook-id.
    const listed = await cli(['webhooks', 'list', '--status', 'delivered'], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout.trim().split('\n').length, 5, listed.stdout);
    assert.match(listed.stdout, /\tdelivered\t0\t.*\tmessage\.new\tmsg_/);
    const replayed = await cli(['webhooks', 'replay', '--since', '1h'], env);
    assert.equal(replayed.stdout.trim(), '4 deliveries will be sent again');
    await until(() => hooks.received.length === 8);
    assert.deepEqual(new Set(hooks.received.map((r) => r.id)).size, 4, 'a replay keeps each webhook-id');
  });

  it('retries while the receiver is down, keeps it as failed after the window, and retry sends it again', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const hooks = await webhookReceiver(secret);
    hooks.state.mode = 'down';
    const { t } = await site({ WEBHOOK_URLS: hooks.url, WEBHOOK_SECRET: secret, WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_RETRY_FOR_S: '1' });
    await t.toggle(ALICE, { listing_id: IPHONE });
    const outbox = t.souk.store.webhooks!;
    await until(async () => (await outbox.list({ status: 'failed', limit: 10 })).length === 1);
    const [failed] = await outbox.list({ limit: 10 });
    assert.ok(failed!.attempts >= 1 && failed!.lastError === 'HTTP 503', JSON.stringify(failed));
    hooks.state.mode = 'ok';
    assert.equal(await outbox.retry([], Date.now()), 1);
    await hooks.waitFor(1);
    assert.equal(hooks.received[0]!.body.type, 'favourite.added');
  });

  it('pushes a new message once to the recipient’s registered device', async () => {
    const expo = await expoReceiver();
    const { t } = await site({ EXPO_PUSH_URL: expo.url, PUSH_APP_SCHEME: 'souktest' });
    const token = 'ExponentPushToken[bob-phone]';
    const registered = await t.post(`${API}/push-notification/register`, { push_token: token, events: ['chat'] }, auth(t, BOB));
    assert.equal(registered.statusCode, 200, registered.body);
    assert.deepEqual(await t.souk.store.pushDevices!.tokensOf(BOB), [token]);
    const body = { listing_id: IPHONE, text: 'Is it still available?', temp_id: '1700000000001' };
    const started = (await t.start(ALICE, body)).json();
    // A retry of the same message pushes nothing more.
    const again = await t.start(ALICE, body);
    assert.equal(again.statusCode, 200, again.body);
    await until(async () => (await t.souk.store.pushOutbox!.list(10)).every((d) => d.status !== 'pending'));
    assert.deepEqual(expo.messages(), [
      {
        to: token,
        title: 'Alice Tester',
        body: 'Is it still available?',
        data: { url: `souktest://conversation/${started.con_id}/${IPHONE}` },
        sound: 'default',
      },
    ]);
    assert.deepEqual(
      (await t.souk.store.pushOutbox!.list(10)).map((d) => [d.userId, d.status]),
      [[BOB, 'sent']],
    );
  });

  it('pushes through FCM beside Expo, each device once when FCM asks to wait, and drops an UNREGISTERED token', async () => {
    const expo = await expoReceiver();
    const fcm = await fcmReceiver();
    const { t } = await site({ EXPO_PUSH_URL: expo.url, PUSH_APP_SCHEME: 'souktest', PUSH_RETRY_BASE_MS: '100', ...fcm.env });
    for (const token of [fcmToken('bob-pixel'), fcmToken('bob-old'), 'ExponentPushToken[bob-phone]'])
      assert.equal((await t.post(`${API}/push-notification/register`, { push_token: token }, auth(t, BOB))).statusCode, 200);
    fcm.state.unregistered.add(fcmToken('bob-old'));
    fcm.state.throttleOnce.add(fcmToken('bob-pixel'));
    const started = (await t.start(ALICE, { listing_id: IPHONE, text: 'Is it still available?' })).json();
    await until(async () => (await t.souk.store.pushOutbox!.list(10)).every((d) => d.status !== 'pending'), 10_000);
    assert.deepEqual(
      fcm.messages().map((m) => [m.token, m.notification.title, m.notification.body, m.data.url]),
      [[fcmToken('bob-pixel'), 'Alice Tester', 'Is it still available?', `souktest://conversation/${started.con_id}/${IPHONE}`]],
    );
    assert.deepEqual(
      expo.messages().map((m) => m.to),
      ['ExponentPushToken[bob-phone]'],
    );
    assert.deepEqual(
      (await t.souk.store.pushDevices!.tokensOf(BOB)).sort(),
      [fcmToken('bob-pixel'), 'ExponentPushToken[bob-phone]'].sort(),
    );
    assert.deepEqual(
      (await t.souk.store.pushOutbox!.list(10)).map((d) => [d.status, d.attempts]),
      [['sent', 1]],
    );
  });
});
