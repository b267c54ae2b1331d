/**
 * Offers (docs/offers.md): POST my/chat/offer and POST my/chat/offer/respond through the app, the
 * whole negotiation (offer, counter, accept) and how the reads show it in both reply generations,
 * the rules (amounts, currency, who may answer, once, expiry, the day's count, the start's rules),
 * the events on the streams and the `offer.accepted` webhook, and two answers at once. On SQLite,
 * and on PostgreSQL with TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { SseClient, type SseEvent } from '../helpers/sse.js';
import { webhookReceiver } from '../helpers/webhook-receiver.js';

const API = '/wp-json/rtcl/v1';
const bad = (error_message: string) => ({ status: 'error', error: 'BADREQUEST', code: '400', error_message });
const conflict = (error: string, error_message: string) => ({ status: 'error', error, code: '409', error_message });
const NO_PERMISSION = { code: 'FORBIDDEN', message: 'You are not permitted to access this conversation.' };
const AMOUNT = 'amount is required and must be a positive number with at most 2 decimals.';
const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

const offer = (t: TestSouk, user: number, body: unknown) => t.post(`${API}/my/chat/offer`, body, t.auth(user));
const respond = (t: TestSouk, user: number, body: unknown) => t.post(`${API}/my/chat/offer/respond`, body, t.auth(user));
const read = async (t: TestSouk, user: number, conId: number) => {
  const res = await t.app.inject({ method: 'GET', url: `${API}/my/chat/conversation?con_id=${conId}`, headers: t.auth(user) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};

function assertOffer(m: any, expected: { text: string; amount: string; status: string; by: number }) {
  assert.equal(m.type, 'offer');
  assert.equal(m.message, expected.text);
  assert.equal(m.source_id, expected.by);
  const { expires_at, ...rest } = m.meta.offer;
  assert.deepEqual(rest, { amount: expected.amount, currency: 'USD', status: expected.status, by: expected.by });
  assert.match(expires_at, TIME);
}

describe('offers', () => {
  it('a whole negotiation: an offer that starts the conversation, a counter, an accept; the reads show each', async () => {
    const t = await startTestSouk();
    // The buyer offers on the listing: the conversation starts with the offer.
    let res = await offer(t, USERS.amina, { listing_id: LISTINGS.bike, amount: 1150 });
    assert.equal(res.statusCode, 200, res.body);
    const first = res.json();
    assertOffer(first, { text: 'Offer: $1,150.00 for Road bike', amount: '1150', status: 'pending', by: USERS.amina });
    const conId = first.con_id;
    // A second offer about the listing goes into the open conversation, with the buyer's words below it.
    res = await offer(t, USERS.amina, { listing_id: String(LISTINGS.bike), amount: '1160.5', currency: 'usd', text: 'Cash today.' });
    assert.equal(res.statusCode, 200, res.body);
    const second = res.json();
    assert.equal(second.con_id, conId);
    assertOffer(second, { text: 'Offer: $1,160.50 for Road bike\nCash today.', amount: '1160.5', status: 'pending', by: USERS.amina });

    // The owner counters the second: a new pending offer of his; the second is countered.
    res = await respond(t, USERS.youssef, { message_id: second.message_id, action: 'counter', amount: '1180.00' });
    assert.equal(res.statusCode, 200, res.body);
    const counter = res.json();
    assertOffer(counter, { text: 'Counter-offer: $1,180.00 for Road bike', amount: '1180', status: 'pending', by: USERS.youssef });
    // Once: the countered offer cannot be answered again, and nobody answers their own.
    res = await respond(t, USERS.youssef, { message_id: second.message_id, action: 'accept' });
    assert.deepEqual([res.statusCode, res.json()], [409, conflict('OFFER_ANSWERED', 'This offer has already been answered.')]);
    res = await respond(t, USERS.youssef, { message_id: counter.message_id, action: 'accept' });
    assert.deepEqual([res.statusCode, res.json()], [403, { code: 'FORBIDDEN', message: 'You cannot answer your own offer.' }]);
    res = await respond(t, USERS.sara, { message_id: counter.message_id, action: 'accept' });
    assert.deepEqual([res.statusCode, res.json()], [403, NO_PERMISSION]);

    // The buyer accepts the counter: the first offer, still pending, is declined with it.
    res = await respond(t, USERS.amina, { message_id: counter.message_id, action: 'accept' });
    assert.equal(res.statusCode, 200, res.body);
    const accepted = res.json();
    assert.equal(accepted.type, 'text');
    assert.equal(accepted.message, 'Offer accepted: $1,180.00');
    assert.equal(accepted.meta, null);
    res = await respond(t, USERS.youssef, { message_id: first.message_id, action: 'accept' });
    assert.deepEqual([res.statusCode, res.json()], [409, conflict('OFFER_ANSWERED', 'This offer has already been answered.')]);

    // The current generation's rows: the offers' meta as JSON text, their statuses as they are now.
    const conversation = await read(t, USERS.youssef, conId);
    assert.equal(conversation.last_message, 'Offer accepted: $1,180.00');
    const rows = conversation.messages as any[];
    assert.deepEqual(
      rows.map((m) => [m.type, m.message, m.meta === null ? null : JSON.parse(m.meta).offer.status]),
      [
        ['text', 'Offer accepted: $1,180.00', null],
        ['offer', 'Counter-offer: $1,180.00 for Road bike', 'accepted'],
        ['offer', 'Offer: $1,160.50 for Road bike\nCash today.', 'countered'],
        ['offer', 'Offer: $1,150.00 for Road bike', 'declined'],
      ],
    );
    for (const row of rows) for (const value of Object.values(row)) assert.ok(value === null || typeof value === 'string');
    assert.deepEqual(Object.keys(rows[1]), [
      'message_id',
      'con_id',
      'source_id',
      'type',
      'message',
      'attachments',
      'meta',
      'is_read',
      'created_at',
    ]);
  });

  it('the classic generation shows the offers as the text of ordinary messages', async () => {
    const t = await startTestSouk({ CHAT_REPLY_FORMAT: 'classic' });
    const made = (await offer(t, USERS.amina, { listing_id: LISTINGS.bike, amount: 900 })).json();
    const answer = await respond(t, USERS.youssef, { message_id: made.message_id, action: 'decline' });
    assert.equal(answer.statusCode, 200, answer.body);
    const conversation = await read(t, USERS.amina, made.con_id);
    assert.deepEqual(
      conversation.messages.map((m: any) => [Object.keys(m), m.source_id, m.message]),
      [
        [['message_id', 'con_id', 'source_id', 'message', 'is_read', 'created_at'], String(USERS.amina), 'Offer: $900.00 for Road bike'],
        [['message_id', 'con_id', 'source_id', 'message', 'is_read', 'created_at'], String(USERS.youssef), 'Offer declined: $900.00'],
      ],
    );
    const list = await t.app.inject({ method: 'GET', url: `${API}/my/chat`, headers: t.auth(USERS.youssef) });
    assert.equal(list.json()[0].last_message, 'Offer declined: $900.00');
  });

  it("refuses what the rules forbid, with the neighbouring routes' shapes, and stores nothing", async () => {
    const t = await startTestSouk({ OFFERS_PER_CONVERSATION_PER_DAY: '3' });
    const started = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json();
    const conId = started.con_id;
    const refusals: Array<[user: number, body: unknown, status: number, reply: unknown]> = [
      [USERS.amina, { amount: 10 }, 400, bad('con_id or listing_id is required and must be a positive integer.')],
      [USERS.amina, { con_id: 'x', amount: 10 }, 400, bad('con_id is required and must be a positive integer.')],
      [USERS.amina, { con_id: conId }, 400, bad(AMOUNT)],
      [USERS.amina, { con_id: conId, amount: 'abc' }, 400, bad(AMOUNT)],
      [USERS.amina, { con_id: conId, amount: -5 }, 400, bad(AMOUNT)],
      [USERS.amina, { con_id: conId, amount: '0.00' }, 400, bad(AMOUNT)],
      [USERS.amina, { con_id: conId, amount: '1.234' }, 400, bad(AMOUNT)],
      [USERS.amina, { con_id: conId, amount: '1e3' }, 400, bad(AMOUNT)],
      [USERS.amina, { con_id: conId, amount: [5] }, 400, bad(AMOUNT)],
      // At most ten times the listing's price (1200).
      [USERS.amina, { con_id: conId, amount: '12000.01' }, 400, bad("amount must be at most 10 times the listing's price.")],
      [USERS.amina, { con_id: conId, amount: 5, currency: 'EUR' }, 400, bad("currency must be the listing's currency, USD.")],
      [USERS.amina, { con_id: conId, amount: 5, currency: 7 }, 400, bad('currency must be a string: an ISO 4217 code such as USD.')],
      // N3, and the start's rules with listing_id: the owner's own listing, a listing in the trash.
      [USERS.sara, { con_id: conId, amount: 5 }, 403, NO_PERMISSION],
      [USERS.amina, { con_id: 99999, amount: 5 }, 403, NO_PERMISSION],
      [USERS.youssef, { listing_id: LISTINGS.bike, amount: 5 }, 403, NO_PERMISSION],
      [USERS.amina, { listing_id: LISTINGS.trashed, amount: 5 }, 400, bad('Listing not found.')],
      [USERS.amina, { listing_id: 999, amount: 5 }, 400, bad('Listing not found.')],
    ];
    for (const [user, body, status, reply] of refusals) {
      const res = await offer(t, user, body);
      assert.deepEqual([res.statusCode, res.json()], [status, reply], JSON.stringify(body));
    }
    assert.equal((await read(t, USERS.amina, conId)).messages.length, 1);
    assert.equal(await t.souk.store.repos.conversations.countFor(USERS.amina, false), 1);

    // Ten times the price is allowed; both sides count their own offers of the day.
    let res = await offer(t, USERS.amina, { con_id: conId, amount: '12000' });
    assert.equal(res.statusCode, 200, res.body);
    const made = res.json();
    for (let i = 0; i < 2; i++) assert.equal((await offer(t, USERS.amina, { con_id: conId, amount: 100 + i })).statusCode, 200);
    res = await offer(t, USERS.amina, { con_id: conId, amount: 50 });
    assert.deepEqual(
      [res.statusCode, res.json()],
      [
        429,
        {
          status: 'error',
          error: 'TOO_MANY_REQUESTS',
          code: '429',
          error_message: 'Too many offers in this conversation in the last 24 hours.',
        },
      ],
    );
    res = await offer(t, USERS.youssef, { con_id: conId, amount: 1190 });
    assert.equal(res.statusCode, 200, res.body);
    // The answers' own refusals.
    const answers: Array<[user: number, body: unknown, status: number, reply: unknown]> = [
      [USERS.youssef, { action: 'accept' }, 400, bad('message_id is required and must be a positive integer.')],
      [USERS.youssef, { message_id: made.message_id }, 400, bad('action is required and must be accept, decline or counter.')],
      [
        USERS.youssef,
        { message_id: made.message_id, action: 'maybe' },
        400,
        bad('action is required and must be accept, decline or counter.'),
      ],
      [USERS.youssef, { message_id: made.message_id, action: 'counter' }, 400, bad('amount is required to counter an offer.')],
      [USERS.youssef, { message_id: made.message_id, action: 'counter', amount: '9.999' }, 400, bad(AMOUNT)],
      [
        USERS.youssef,
        { message_id: made.message_id, action: 'counter', amount: 999999 },
        400,
        bad("amount must be at most 10 times the listing's price."),
      ],
      [USERS.youssef, { message_id: started.newMessage.message_id, action: 'accept' }, 400, bad('message_id is not an offer.')],
      [
        USERS.amina,
        { message_id: made.message_id, action: 'decline' },
        403,
        { code: 'FORBIDDEN', message: 'You cannot answer your own offer.' },
      ],
      [USERS.sara, { message_id: made.message_id, action: 'decline' }, 403, NO_PERMISSION],
      [USERS.youssef, { message_id: 99999, action: 'decline' }, 403, NO_PERMISSION],
    ];
    for (const [user, body, status, reply] of answers) {
      const res = await respond(t, user, body);
      assert.deepEqual([res.statusCode, res.json()], [status, reply], JSON.stringify(body));
    }
    const rows = (await read(t, USERS.amina, conId)).messages as any[];
    assert.equal(rows.length, 5);
    assert.ok(rows.filter((m) => m.type === 'offer').every((m) => JSON.parse(m.meta).offer.status === 'pending'));

    // A block closes the offers both ways, as it closes the chat.
    res = await t.post(`${API}/privacy/user/block`, { user_id: USERS.amina }, t.auth(USERS.youssef));
    assert.equal(res.statusCode, 200, res.body);
    res = await offer(t, USERS.youssef, { con_id: conId, amount: 5 });
    assert.deepEqual([res.statusCode, res.json()], [403, { code: 'FORBIDDEN', message: 'You cannot send messages to this user.' }]);
    res = await respond(t, USERS.youssef, { message_id: made.message_id, action: 'accept' });
    assert.deepEqual([res.statusCode, res.json()], [403, { code: 'FORBIDDEN', message: 'You cannot send messages to this user.' }]);
  });

  it("refuses an offer's words as a message's, and an offer with listing_id keeps every rule of a start", async () => {
    const t = await startTestSouk({ NEW_CONVERSATIONS_PER_HOUR: '1' });
    await t.souk.store.settings.set('bad_words', 'scam');
    await t.souk.settings.refresh();
    let res = await offer(t, USERS.amina, { listing_id: LISTINGS.bike, amount: 10, text: 'No scam' });
    assert.deepEqual([res.statusCode, res.json()], [400, bad('Your message contains inappropriate words (scam).')]);
    assert.equal(await t.souk.store.repos.conversations.countFor(USERS.amina, false), 0);
    res = await offer(t, USERS.amina, { listing_id: LISTINGS.bike, amount: 10 });
    assert.equal(res.statusCode, 200, res.body);
    // The hour's one new conversation is spent: a second start by an offer is refused, one in the open conversation is not.
    res = await offer(t, USERS.amina, { listing_id: LISTINGS.draft, amount: 10 });
    assert.equal(res.statusCode, 429, res.body);
    res = await offer(t, USERS.amina, { listing_id: LISTINGS.bike, amount: 11 });
    assert.equal(res.statusCode, 200, res.body);
  });

  it('an offer expires after OFFER_TTL_S: answering it then is refused and changes nothing', async () => {
    const t = await startTestSouk({ OFFER_TTL_S: '1' });
    const made = (await offer(t, USERS.amina, { listing_id: LISTINGS.bike, amount: 1000 })).json();
    await new Promise((r) => setTimeout(r, 1100));
    for (const action of ['accept', 'decline', 'counter']) {
      const res = await respond(t, USERS.youssef, { message_id: made.message_id, action, amount: 1100 });
      assert.deepEqual([res.statusCode, res.json()], [409, conflict('OFFER_EXPIRED', 'This offer has expired.')]);
    }
    const rows = (await read(t, USERS.youssef, made.con_id)).messages;
    assert.equal(rows.length, 1);
    assert.equal(JSON.parse(rows[0].meta).offer.status, 'pending');
  });

  it('streams each offer and answer, sends message.update of the offers changed, and offer.accepted to the webhooks', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const hooks = await webhookReceiver(secret);
    const t = await startTestSouk({ WEBHOOK_URLS: hooks.url, WEBHOOK_SECRET: secret });
    const base = await t.listen();
    const owner = await SseClient.open(`${base}${API}/my/events`, t.auth(USERS.youssef));
    const buyer = await SseClient.open(`${base}${API}/my/events`, t.auth(USERS.amina));
    const made = (await offer(t, USERS.amina, { listing_id: LISTINGS.bike, amount: 1100 })).json();
    const [started, message] = (await owner.take(3)) as [SseEvent, SseEvent, SseEvent];
    assert.equal(started.event, 'conversation.new');
    assert.deepEqual(JSON.parse(started.data).conversation.newMessage, made);
    assert.equal(message.event, 'message.new');
    assert.deepEqual(JSON.parse(message.data).message, made);

    const res = await respond(t, USERS.youssef, { message_id: made.message_id, action: 'accept' });
    assert.equal(res.statusCode, 200, res.body);
    const answer = res.json();
    const acceptedOffer = { ...made, meta: { offer: { ...made.meta.offer, status: 'accepted' } } };
    const buyerEvents = await buyer.take(3);
    assert.deepEqual(
      buyerEvents.map((e) => e.event),
      ['message.new', 'conversation.unread', 'message.update'],
    );
    assert.deepEqual(JSON.parse(buyerEvents[0]!.data).message, answer);
    assert.deepEqual(JSON.parse(buyerEvents[2]!.data).message, acceptedOffer);
    // The owner's other devices hear of it too.
    const ownerUpdate = await owner.next();
    assert.equal(ownerUpdate.event, 'message.update');
    assert.deepEqual(JSON.parse(ownerUpdate.data).message, acceptedOffer);
    await buyer.nothingWithin(200);
    owner.close();
    buyer.close();

    await hooks.waitFor(1, 10_000);
    const deadline = Date.now() + 10_000;
    while (!hooks.received.some((r) => r.body.type === 'offer.accepted') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const hook = hooks.received.find((r) => r.body.type === 'offer.accepted');
    assert.ok(hook, JSON.stringify(hooks.received.map((r) => r.body.type)));
    assert.equal(hook.body.user_id, USERS.youssef);
    const { offer: sent, conversation, listing } = hook.body.data;
    assert.deepEqual(sent, acceptedOffer);
    assert.equal(conversation.con_id, made.con_id);
    assert.equal(conversation.listing_id, LISTINGS.bike);
    assert.equal(conversation.sender_id, USERS.amina);
    assert.equal(conversation.recipient_id, USERS.youssef);
    assert.equal(listing.id, LISTINGS.bike);
    assert.equal(listing.title, 'Road bike');
  });

  it('of two answers at once, exactly one wins', async () => {
    const t = await startTestSouk();
    for (let round = 0; round < 5; round++) {
      // The same offer accepted twice at once (two devices).
      const made = (await offer(t, USERS.amina, { listing_id: LISTINGS.bike, amount: 1000 + round })).json();
      const twice = await Promise.all([
        respond(t, USERS.youssef, { message_id: made.message_id, action: 'accept' }),
        respond(t, USERS.youssef, { message_id: made.message_id, action: 'decline' }),
      ]);
      assert.deepEqual(twice.map((r) => r.statusCode).sort(), [200, 409], twice.map((r) => r.body).join('\n'));
      // Each side accepts the other's pending offer at once: accepting one declines the other.
      const mine = (await offer(t, USERS.amina, { con_id: made.con_id, amount: 900 })).json();
      const his = (await offer(t, USERS.youssef, { con_id: made.con_id, amount: 1100 })).json();
      const crossed = await Promise.all([
        respond(t, USERS.youssef, { message_id: mine.message_id, action: 'accept' }),
        respond(t, USERS.amina, { message_id: his.message_id, action: 'accept' }),
      ]);
      assert.deepEqual(crossed.map((r) => r.statusCode).sort(), [200, 409], crossed.map((r) => r.body).join('\n'));
      const rows = (await read(t, USERS.amina, made.con_id)).messages as any[];
      const status = (id: number) => JSON.parse(rows.find((m) => m.message_id === String(id)).meta).offer.status;
      assert.deepEqual([status(mine.message_id), status(his.message_id)].sort(), ['accepted', 'declined']);
      // The next round in a conversation of its own: the buyer leaves this one, and her next offer starts another.
      await t.app.inject({ method: 'DELETE', url: `${API}/my/chat/conversation?con_id=${made.con_id}`, headers: t.auth(USERS.amina) });
    }
  });
});
