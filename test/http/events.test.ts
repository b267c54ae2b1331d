/**
 * GET my/events: the caller's events as Server-Sent Events, named and shaped as the routes and
 * the plugin's Pusher events; Last-Event-ID replay from the log, reset past the retention,
 * tickets, revocation, heartbeats, and nobody else's events. On SQLite and on PostgreSQL
 * (TEST_DATABASE_URL).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { SseClient } from '../helpers/sse.js';
import { until } from '../helpers/until.js';

const EVENTS = '/wp-json/rtcl/v1/my/events';
const TICKET = '/wp-json/rtcl/v1/my/events/ticket';
const MESSAGE = '/wp-json/rtcl/v1/my/chat/message';
const CONVERSATION = '/wp-json/rtcl/v1/my/chat/conversation';

async function stream(t: TestSouk, base: string, userId: number, headers: Record<string, string> = {}) {
  const client = await SseClient.open(base + EVENTS, { ...t.auth(userId), ...headers });
  assert.equal(client.status, 200, client.body);
  return client;
}

const json = (data: string) => JSON.parse(data) as any;

async function send(t: TestSouk, userId: number, body: Record<string, unknown>) {
  const res = await t.post(MESSAGE, body, t.auth(userId));
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

describe('GET my/events', () => {
  it('streams a new conversation to the listing owner in the shapes the routes use, and nothing to the sender', async () => {
    const t = await startTestSouk();
    const base = await t.listen();
    const owner = await stream(t, base, USERS.youssef);
    const buyer = await stream(t, base, USERS.amina);
    assert.match(owner.headers['content-type'] as string, /^text\/event-stream/);
    assert.equal(owner.headers['cache-control'], 'no-cache, no-transform');

    const started = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Is it still for sale?', temp_id: 7 });
    assert.equal(started.statusCode, 200);
    const reply = started.json();
    const [created, message, unread] = await owner.take(3);
    assert.deepEqual([created!.event, message!.event, unread!.event], ['conversation.new', 'message.new', 'conversation.unread']);
    assert.deepEqual([created!.id, message!.id, unread!.id], ['1', '2', '3']);
    // The recipient's view: the reply's conversation with their one unread message.
    assert.deepEqual(json(created!.data), { conversation: { ...reply, unread_count: 1 } });
    assert.deepEqual(json(message!.data), { message: reply.newMessage });
    assert.deepEqual(json(unread!.data), { user_id: USERS.youssef, count: 1, conversation_id: reply.con_id });

    // A retry stores nothing and so sends nothing; the sender gets nothing of their own.
    const retry = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Is it still for sale?', temp_id: 7 });
    assert.equal(retry.statusCode, 200);
    await owner.nothingWithin(200);
    await buyer.nothingWithin(0);
    owner.close();
    buyer.close();
  });

  it('streams answers, read receipts and leaving to the other participant, one message.new per message', async () => {
    const t = await startTestSouk();
    const base = await t.listen();
    const conId = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json().con_id;
    const buyer = await stream(t, base, USERS.amina);
    const owner = await stream(t, base, USERS.youssef);

    const answer = await send(t, USERS.youssef, { con_id: conId, listing_id: LISTINGS.bike, text: 'Yes', temp_id: 9 });
    const [message, unread] = await buyer.take(2);
    assert.equal(message!.event, 'message.new');
    assert.deepEqual(json(message!.data), { message: answer });
    assert.deepEqual(json(unread!.data), { user_id: USERS.amina, count: 1, conversation_id: conId });
    // The same temp_id again: the stored message, no second event.
    await send(t, USERS.youssef, { con_id: conId, listing_id: LISTINGS.bike, text: 'Yes', temp_id: 9 });
    await buyer.nothingWithin(200);

    const read = await t.app.inject({
      method: 'PUT',
      url: `${MESSAGE}?con_id=${conId}&message_id=${answer.message_id}`,
      headers: t.auth(USERS.amina),
    });
    assert.equal(read.body, '1');
    const receipt = await owner.next();
    assert.equal(receipt.event, 'message.update');
    assert.deepEqual(json(receipt.data), { message: { ...answer, is_read: 1 } });
    // The reader's own count, for their other devices.
    const mine = await buyer.next();
    assert.deepEqual([mine.event, json(mine.data)], ['conversation.unread', { user_id: USERS.amina, count: 0, conversation_id: conId }]);
    // Marking it again changes nothing and sends nothing.
    await t.app.inject({ method: 'PUT', url: `${MESSAGE}?con_id=${conId}&message_id=${answer.message_id}`, headers: t.auth(USERS.amina) });
    await owner.nothingWithin(200);

    const left = await t.app.inject({ method: 'DELETE', url: `${CONVERSATION}?con_id=${conId}`, headers: t.auth(USERS.youssef) });
    assert.equal(left.body, '1');
    const gone = await buyer.next();
    assert.deepEqual([gone.event, json(gone.data)], ['conversation.left', { conversation_id: conId, user_id: USERS.youssef }]);
    buyer.close();
    owner.close();
  });

  it("gives nobody another user's events, and favourites go to no stream", async () => {
    const t = await startTestSouk();
    const base = await t.listen();
    const streams = {
      amina: await stream(t, base, USERS.amina),
      youssef: await stream(t, base, USERS.youssef),
      sara: await stream(t, base, USERS.sara),
    };
    await t.toggle(USERS.sara, { listing_id: LISTINGS.bike });
    // sara writes to youssef, amina to sara.
    const a = (await t.start(USERS.sara, { listing_id: LISTINGS.bike, text: 'from sara' })).json();
    const b = (await t.start(USERS.amina, { listing_id: LISTINGS.table, text: 'from amina' })).json();
    const youssefs = await streams.youssef.take(3);
    const saras = await streams.sara.take(3);
    assert.ok(youssefs.every((e) => e.data.includes(`"con_id":${a.con_id}`) || e.data.includes(`"conversation_id":${a.con_id}`)));
    assert.ok(saras.every((e) => e.data.includes(`"con_id":${b.con_id}`) || e.data.includes(`"conversation_id":${b.con_id}`)));
    await streams.amina.nothingWithin(200);
    await streams.youssef.nothingWithin(0);
    await streams.sara.nothingWithin(0);
    for (const s of Object.values(streams)) s.close();
  });

  it('replays exactly what was missed after Last-Event-ID, and resets past the retention', async () => {
    const t = await startTestSouk();
    const base = await t.listen();
    const conId = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'one' })).json().con_id;
    // youssef's log: 1-3 from the start; then three answers from amina make 4-9.
    for (const text of ['two', 'three', 'four']) await send(t, USERS.amina, { con_id: conId, text });
    const resumed = await stream(t, base, USERS.youssef, { 'last-event-id': '5' });
    const replayed = await resumed.take(4);
    assert.deepEqual(
      replayed.map((e) => e.id),
      ['6', '7', '8', '9'],
    );
    assert.deepEqual(json(replayed[2]!.data).message.message, 'four');
    await resumed.nothingWithin(100);
    // Live events continue the numbering.
    await send(t, USERS.amina, { con_id: conId, text: 'five' });
    assert.deepEqual(
      (await resumed.take(2)).map((e) => e.id),
      ['10', '11'],
    );
    resumed.close();

    // The same through the query parameter, and from the end: nothing to replay.
    const atEnd = await stream(t, base, USERS.youssef, {});
    await atEnd.nothingWithin(100);
    atEnd.close();
    const query = await SseClient.open(`${base}${EVENTS}?last_event_id=9`, t.auth(USERS.youssef));
    assert.deepEqual(
      (await query.take(2)).map((e) => e.id),
      ['10', '11'],
    );
    query.close();

    // Everything older than the retention is pruned: a client that saw 5 missed pruned events.
    await t.souk.store.eventLog!.prune(Date.now() + 1);
    const late = await stream(t, base, USERS.youssef, { 'last-event-id': '5' });
    const reset = await late.next();
    assert.deepEqual([reset.event, reset.id, json(reset.data)], ['reset', '11', { last_event_id: 11 }]);
    await send(t, USERS.amina, { con_id: conId, text: 'six' });
    assert.deepEqual(
      (await late.take(2)).map((e) => e.id),
      ['12', '13'],
    );
    late.close();
    // A client that saw everything up to 13 missed nothing, pruned or not; an id from elsewhere resets.
    const upToDate = await stream(t, base, USERS.youssef, { 'last-event-id': '13' });
    await upToDate.nothingWithin(100);
    upToDate.close();
    for (const id of ['99', 'abc']) {
      const stranger = await stream(t, base, USERS.youssef, { 'last-event-id': id });
      const r = await stranger.next();
      assert.deepEqual([r.event, r.id], ['reset', '13']);
      stranger.close();
    }
  });

  it('closes the stream of a token signed out, and refuses what the other routes refuse, unanswered by a stream', async () => {
    const t = await startTestSouk();
    const base = await t.listen();
    const token = t.token(USERS.amina);
    const headers = { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey };
    const client = await SseClient.open(base + EVENTS, headers);
    assert.equal(client.status, 200);
    const out = await t.post('/wp-json/rtcl/v1/logout', {}, headers);
    assert.equal(out.statusCode, 200);
    await client.waitClosed(3000);
    const again = await SseClient.open(base + EVENTS, headers);
    assert.deepEqual([again.status, JSON.parse(again.body).error_message], [401, 'JWT has been revoked.']);
    const noKey = await SseClient.open(base + EVENTS, { authorization: `Bearer ${t.token(USERS.amina)}` });
    assert.deepEqual([noKey.status, JSON.parse(noKey.body).error], [401, 'MISSING_X_API_KEY_HEADER']);
    const noToken = await SseClient.open(base + EVENTS, { 'x-api-key': t.apiKey });
    assert.deepEqual([noToken.status, JSON.parse(noToken.body).error], [401, 'MISSING_AUTHORIZATION_HEADER']);
  });

  it('sends heartbeats', async () => {
    const t = await startTestSouk({ EVENTS_HEARTBEAT_MS: '1000' });
    const base = await t.listen();
    const client = await stream(t, base, USERS.amina);
    // One comment on opening, then one a second.
    await client.waitComments(3, 4000);
    client.close();
  });

  it('sends heartbeats to every one of many streams opened together', async () => {
    const t = await startTestSouk({ EVENTS_HEARTBEAT_MS: '1000', EVENTS_STREAMS_PER_USER: '100' });
    const base = await t.listen();
    const users = [USERS.amina, USERS.youssef, USERS.sara];
    const clients = await Promise.all(Array.from({ length: 200 }, (_, i) => stream(t, base, users[i % users.length]!)));
    // A heartbeat every second on each: three more each, with room for a slow machine.
    const seen = clients.map((c) => c.comments);
    await Promise.all(clients.map((c, i) => c.waitComments(seen[i]! + 3, 15_000)));
    assert.equal(t.souk.streams!.size, 200);
    for (const c of clients) c.close();
  });

  it("keeps nothing of its request's Fastify objects once open (they would outlive it by hours)", async () => {
    const t = await startTestSouk();
    const requests: WeakRef<object>[] = [];
    t.app.addHook('onRequest', (request, _reply, done) => {
      requests.push(new WeakRef(request));
      done();
    });
    const base = await t.listen();
    const client = await stream(t, base, USERS.amina);
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    await until(async () => {
      gc();
      await new Promise((r) => setImmediate(r));
      return requests[0]!.deref() === undefined;
    });
    // The stream still works, and ends cleanly.
    await t.start(USERS.youssef, { listing_id: LISTINGS.aminasOwn, text: 'hello' });
    assert.equal((await client.next()).event, 'conversation.new');
    client.close();
    await until(() => t.souk.streams!.size === 0);
  });

  it('opens a stream with a single-use ticket in place of the headers (EventSource)', async () => {
    const t = await startTestSouk();
    const base = await t.listen();
    const issued = await t.post(TICKET, {}, t.auth(USERS.youssef));
    assert.equal(issued.statusCode, 200, issued.body);
    const { ticket, expires_in } = issued.json();
    assert.match(ticket, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(expires_in > 0 && expires_in <= 30);
    const client = await SseClient.open(`${base}${EVENTS}?ticket=${ticket}`);
    assert.equal(client.status, 200);
    await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'hi' });
    assert.equal((await client.next()).event, 'conversation.new');
    client.close();
    for (const bad of [ticket, 'x'.repeat(43), 'short', encodeURIComponent('a\u0000b')]) {
      const refused = await SseClient.open(`${base}${EVENTS}?ticket=${bad}`);
      assert.deepEqual([refused.status, JSON.parse(refused.body).error], [401, 'INVALID_TICKET'], bad);
    }
    // Without a token, no ticket.
    const anonymous = await t.post(TICKET, {}, { 'x-api-key': t.apiKey });
    assert.equal(anonymous.statusCode, 401);
  });

  it('keeps at most EVENTS_STREAMS_PER_USER streams per user: a new one closes the oldest', async () => {
    const t = await startTestSouk({ EVENTS_STREAMS_PER_USER: '2' });
    const base = await t.listen();
    const first = await stream(t, base, USERS.amina);
    const second = await stream(t, base, USERS.amina);
    const third = await stream(t, base, USERS.amina);
    await first.waitClosed(2000);
    assert.equal(second.closed || third.closed, false);
    assert.equal(t.souk.streams!.size, 2);
    second.close();
    third.close();
  });

  it('ends every stream when the server closes', async () => {
    const t = await startTestSouk();
    const base = await t.listen();
    const client = await stream(t, base, USERS.amina);
    const closing = t.close();
    await client.waitClosed(3000);
    await closing;
  });
});

describe('the event log', () => {
  it('records events in the same transaction as the change: a failed start records nothing', async () => {
    const t = await startTestSouk();
    assert.notEqual((await t.start(USERS.amina, { listing_id: LISTINGS.aminasOwn, text: 'mine' })).statusCode, 200);
    assert.notEqual((await t.start(USERS.amina, { listing_id: LISTINGS.trashed, text: 'gone' })).statusCode, 200);
    assert.deepEqual(await t.souk.store.db.selectFrom('events').selectAll().execute(), []);
    await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'ok' });
    const rows = await t.souk.store.db.selectFrom('events').select(['user_id', 'seq', 'type']).orderBy('seq').execute();
    assert.deepEqual(
      rows.map((r) => [Number(r.user_id), Number(r.seq), r.type]),
      [
        [USERS.youssef, 1, 'conversation.new'],
        [USERS.youssef, 2, 'message.new'],
        [USERS.youssef, 3, 'conversation.unread'],
      ],
    );
  });

  it("numbers one user's events without gaps or repeats under concurrent writers", async () => {
    const t = await startTestSouk();
    const base = await t.listen();
    const conA = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'a' })).json().con_id;
    const conS = (await t.start(USERS.sara, { listing_id: LISTINGS.bike, text: 's' })).json().con_id;
    const owner = await stream(t, base, USERS.youssef, { 'last-event-id': '6' });
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2 ? send(t, USERS.amina, { con_id: conA, text: `a${i}` }) : send(t, USERS.sara, { con_id: conS, text: `s${i}` }),
      ),
    );
    const events = await owner.take(80);
    assert.deepEqual(
      events.map((e) => Number(e.id)),
      Array.from({ length: 80 }, (_, i) => i + 7),
    );
    // Per conversation, the messages arrive in the order they were stored.
    for (const con of [conA, conS]) {
      const ids = events
        .filter((e) => e.event === 'message.new')
        .map((e) => json(e.data).message)
        .filter((m) => m.con_id === con)
        .map((m) => m.message_id);
      assert.deepEqual(
        ids,
        [...ids].sort((x, y) => x - y),
      );
      assert.equal(ids.length, 20);
    }
    owner.close();
  });
});
