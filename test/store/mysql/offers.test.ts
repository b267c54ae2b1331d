/**
 * Offers on a WordPress database (docs/offers.md): stored in the plugin's messages table as a
 * `text` (its `type` is an enum of text, attachment and system) with the offer in `meta`, so the
 * plugin's web chat shows the text; the negotiation through the app, the reads, the rules, expiry,
 * the webhook, two answers at once from two instances, and a 2.x site's tables refused.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestSouk, type TestSouk } from '../../helpers/souk.js';
import { webhookReceiver } from '../../helpers/webhook-receiver.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';

const JWT_SECRET = 'souk-offers-test-secret-0123456789abcdef';
const { alice: ALICE, bob: BOB, carol: CAROL } = SITE_USERS;
const { iphone: IPHONE } = SITE_LISTINGS;
const API = '/wp-json/rtcl/v1';
const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';

const auth = (t: TestSouk, user: number) => ({
  authorization: `Bearer ${t.token(user, { login: SITE_LOGINS[user] })}`,
  'x-api-key': t.apiKey,
});
const offer = (t: TestSouk, user: number, body: unknown) => t.post(`${API}/my/chat/offer`, body, auth(t, user));
const respond = (t: TestSouk, user: number, body: unknown) => t.post(`${API}/my/chat/offer/respond`, body, auth(t, user));

describe('offers on a WordPress site', { skip }, () => {
  it("a negotiation in the plugin's table: offers stored as text with their meta, read back, answered once", async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const hooks = await webhookReceiver(secret);
    const env = { DATABASE_URL: site.url, JWT_SECRET, WEBHOOK_URLS: hooks.url, WEBHOOK_SECRET: secret };
    const t = await startTestSouk(env, null);

    let res = await offer(t, ALICE, { listing_id: IPHONE, amount: 300 });
    assert.equal(res.statusCode, 200, res.body);
    const made = res.json();
    assert.equal(made.type, 'offer');
    assert.match(made.message, /^Offer: \$300(\.00)? for /);
    assert.deepEqual(
      { ...made.meta.offer, expires_at: '' },
      { amount: '300', currency: 'USD', status: 'pending', by: ALICE, expires_at: '' },
    );
    // As the plugin's table holds it: a text, whose meta is the offer.
    // mysql2 parses a column MariaDB marks JSON (json_valid).
    const stored = async (id: number) => {
      const [found] = await site.query<{ type: string; message: string; meta: unknown }>(
        'select type, message, meta from wp_rtcl_conversation_messages where message_id = ?',
        [id],
      );
      return { ...found!, meta: typeof found!.meta === 'string' ? JSON.parse(found!.meta) : found!.meta };
    };
    let row = await stored(made.message_id);
    assert.equal(row.type, 'text');
    assert.equal(row.message, made.message);
    assert.equal(row.meta.offer.status, 'pending');

    // Rules: over ten times the price (350), the own offer, not a participant.
    res = await offer(t, ALICE, { con_id: made.con_id, amount: 3500.01 });
    assert.equal(res.statusCode, 400, res.body);
    res = await respond(t, ALICE, { message_id: made.message_id, action: 'accept' });
    assert.equal(res.statusCode, 403, res.body);
    res = await respond(t, CAROL, { message_id: made.message_id, action: 'accept' });
    assert.equal(res.statusCode, 403, res.body);

    // The owner counters; the buyer accepts the counter.
    res = await respond(t, BOB, { message_id: made.message_id, action: 'counter', amount: '320' });
    assert.equal(res.statusCode, 200, res.body);
    const counter = res.json();
    assert.equal(counter.type, 'offer');
    assert.equal((await stored(made.message_id)).meta.offer.status, 'countered');
    res = await respond(t, BOB, { message_id: made.message_id, action: 'accept' });
    assert.equal(res.statusCode, 409, res.body);
    res = await respond(t, ALICE, { message_id: counter.message_id, action: 'accept' });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.json().message, /^Offer accepted: \$320(\.00)?$/);
    row = await stored(counter.message_id);
    assert.deepEqual([row.type, row.meta.offer.status], ['text', 'accepted']);

    // The reads: current rows with the meta as text; the answer a plain text.
    const read = await t.app.inject({ method: 'GET', url: `${API}/my/chat/conversation?con_id=${made.con_id}`, headers: auth(t, BOB) });
    const rows = read.json().messages as any[];
    assert.deepEqual(
      rows.map((m) => [m.type, m.meta === null ? null : JSON.parse(m.meta).offer.status]),
      [
        ['text', null],
        ['offer', 'accepted'],
        ['offer', 'countered'],
      ],
    );

    // The webhook.
    const deadline = Date.now() + 10_000;
    while (!hooks.received.some((r) => r.body.type === 'offer.accepted') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const hook = hooks.received.find((r) => r.body.type === 'offer.accepted')!;
    assert.ok(hook);
    assert.equal(hook.body.data.offer.message_id, counter.message_id);
    assert.equal(hook.body.data.listing.id, IPHONE);

    // Expiry, on an instance whose offers last a second.
    const brief = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET, OFFER_TTL_S: '1' }, null);
    const late = (await offer(brief, ALICE, { con_id: made.con_id, amount: 310 })).json();
    await new Promise((r) => setTimeout(r, 1100));
    res = await respond(brief, BOB, { message_id: late.message_id, action: 'accept' });
    assert.deepEqual([res.statusCode, res.json().error], [409, 'OFFER_EXPIRED']);
  });

  it('of two answers at once on two instances, exactly one wins', async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    const one = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET }, null);
    const two = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET }, null);
    const made = (await offer(one, ALICE, { listing_id: IPHONE, amount: 300 })).json();
    for (let round = 0; round < 5; round++) {
      const mine = (await offer(one, ALICE, { con_id: made.con_id, amount: 300 + round })).json();
      const his = (await offer(two, BOB, { con_id: made.con_id, amount: 340 - round })).json();
      const twice = await Promise.all([
        respond(one, BOB, { message_id: mine.message_id, action: 'accept' }),
        respond(two, BOB, { message_id: mine.message_id, action: 'accept' }),
        respond(two, ALICE, { message_id: his.message_id, action: 'accept' }),
      ]);
      assert.deepEqual(twice.map((r) => r.statusCode).sort(), [200, 409, 409], twice.map((r) => r.body).join('\n'));
    }
    const statuses = await site.query<{ status: string }>(
      "select json_unquote(json_extract(meta, '$.offer.status')) as status from wp_rtcl_conversation_messages where meta is not null",
    );
    assert.equal(statuses.filter((s) => s.status === 'pending').length, 0);
    assert.equal(statuses.filter((s) => s.status === 'accepted').length, 5);
  });

  it('refuses offers on a 2.x site, whose messages have no meta, storing nothing', async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    await site.query('alter table wp_rtcl_conversation_messages drop column type, drop column attachments, drop column meta');
    await site.query('alter table wp_rtcl_conversations drop column updated_at');
    const t = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET }, null);
    const res = await offer(t, ALICE, { listing_id: IPHONE, amount: 300 });
    assert.deepEqual([res.statusCode, res.json().error], [501, 'NOT_IMPLEMENTED']);
    assert.deepEqual(await site.query('select message_id from wp_rtcl_conversation_messages'), []);
  });
});
