/**
 * Webhooks: every event POSTed to a real local receiver that verifies each signature with the
 * standardwebhooks library; the receiver down then up loses nothing; retries end in failed and
 * `souk webhooks retry|replay` sends again; a SIGKILL between the write and the send delivers
 * after the restart. On SQLite, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { startTestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { runCli as cli } from '../helpers/cli.js';
import { startServerProcess } from '../helpers/processes.js';
import { webhookReceiver as receiver } from '../helpers/webhook-receiver.js';
import { until } from '../helpers/until.js';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

describe('webhooks', () => {
  it('POSTs every event, favourites too, signed per Standard Webhooks', async () => {
    const secret = newSecret();
    const hooks = await receiver(secret);
    const t = await startTestSouk({ WEBHOOK_URLS: hooks.url, WEBHOOK_SECRET: secret });
    await t.toggle(USERS.amina, { listing_id: LISTINGS.bike });
    await t.toggle(USERS.amina, { listing_id: LISTINGS.bike });
    const reply = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'hello' })).json();
    await hooks.waitFor(5);
    const byType = new Map(hooks.received.map((r) => [r.body.type, r.body]));
    assert.deepEqual(hooks.received.map((r) => r.body.type).sort(), [
      'conversation.new',
      'conversation.unread',
      'favourite.added',
      'favourite.removed',
      'message.new',
    ]);
    assert.deepEqual(byType.get('favourite.added').data, { user_id: USERS.amina, listing_id: LISTINGS.bike });
    assert.equal(byType.get('favourite.added').user_id, USERS.amina);
    assert.deepEqual(byType.get('message.new').data, { message: reply.newMessage });
    assert.equal(byType.get('message.new').user_id, USERS.youssef);
    assert.match(byType.get('message.new').timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(byType.get('conversation.new').data.conversation.con_id, reply.con_id);
    await until(async () => (await t.souk.store.webhooks!.list({ limit: 100 })).every((r) => r.status === 'delivered'));
    // A wrong secret does not verify.
    assert.throws(() =>
      new Webhook(newSecret()).verify(JSON.stringify(hooks.received[0]!.body), {
        'webhook-id': hooks.received[0]!.id,
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAA',
      }),
    );
  });

  it('loses nothing while the receiver is down, and sends it all once it is back', async () => {
    const secret = newSecret();
    const hooks = await receiver(secret);
    hooks.state.mode = 'down';
    const t = await startTestSouk({ WEBHOOK_URLS: hooks.url, WEBHOOK_SECRET: secret, WEBHOOK_RETRY_BASE_MS: '50' });
    for (let i = 0; i < 10; i++) await t.toggle(USERS.sara, { listing_id: LISTINGS.bike });
    const deadline = Date.now() + 5000;
    while (hooks.state.refused < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(hooks.state.refused >= 20, `${hooks.state.refused} refused attempts`);
    const pending = await t.souk.store.webhooks!.list({ status: 'pending', limit: 100 });
    assert.equal(pending.length, 10);
    assert.ok(pending.every((d) => d.attempts >= 1 && d.lastError === 'HTTP 503'));
    hooks.state.mode = 'ok';
    await hooks.waitFor(10, 15_000);
    const types = hooks.received.map((r) => r.body.type);
    assert.equal(types.filter((x) => x === 'favourite.added').length, 5);
    assert.equal(types.filter((x) => x === 'favourite.removed').length, 5);
  });

  it('keeps a delivery as failed once its retry window is over; retry and replay send it again', async () => {
    const secret = newSecret();
    const hooks = await receiver(secret);
    hooks.state.mode = 'down';
    const t = await startTestSouk({
      WEBHOOK_URLS: hooks.url,
      WEBHOOK_SECRET: secret,
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_RETRY_FOR_S: '1',
    });
    await t.toggle(USERS.sara, { listing_id: LISTINGS.bike });
    const outbox = t.souk.store.webhooks!;
    const deadline = Date.now() + 8000;
    while ((await outbox.list({ status: 'failed', limit: 10 })).length === 0) {
      assert.ok(Date.now() < deadline, 'still not failed');
      await new Promise((r) => setTimeout(r, 100));
    }
    hooks.state.mode = 'ok';
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(hooks.received.length, 0, 'a failed delivery is not sent by itself');
    assert.equal(await outbox.retry([], Date.now()), 1);
    await hooks.waitFor(1);
    // Marked delivered once the receiver's answer is back.
    await until(async () => (await outbox.list({ status: 'delivered', limit: 10 })).length === 1);
    // replay sends delivered ones again, with the same webhook-id.
    assert.equal(await outbox.replay(Date.now() - 60_000, Date.now()), 1);
    const deadline2 = Date.now() + 5000;
    while (hooks.received.length < 2) {
      assert.ok(Date.now() < deadline2);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(hooks.received[1]!.id, hooks.received[0]!.id);
  });

  it('delivers after a SIGKILL between the write and the send, and souk webhooks lists it', async () => {
    const secret = newSecret();
    const hooks = await receiver(secret);
    hooks.state.mode = 'hang';
    // The in-process Souk makes the database and the fixture; processes serve it.
    const t = await startTestSouk();
    const env = {
      DATABASE_URL: t.database.url,
      SITE_URL: t.config.siteUrl,
      WEBHOOK_URLS: hooks.url,
      WEBHOOK_SECRET: secret,
      WEBHOOK_TIMEOUT_MS: '500',
    };
    const first = await startServerProcess(env);
    const res = await fetch(`${first.base}/wp-json/rtcl/v1/my/favourites`, {
      method: 'POST',
      headers: { ...t.auth(USERS.amina), 'content-type': 'application/json' },
      body: JSON.stringify({ listing_id: LISTINGS.bike }),
    });
    assert.equal(res.status, 200);
    // The send is under way (the receiver holds it): kill the process before it is answered.
    const deadline = Date.now() + 5000;
    while (hooks.hanging.length === 0) {
      assert.ok(Date.now() < deadline, 'the delivery never started');
      await new Promise((r) => setTimeout(r, 10));
    }
    await first.stop('SIGKILL');
    hooks.state.mode = 'ok';
    await startServerProcess(env);
    await hooks.waitFor(1, 15_000);
    assert.equal(hooks.received[0]!.body.type, 'favourite.added');

    // The receiver has the delivery; the server records it as delivered once the answer is read.
    const delivered = /\tdelivered\t\d+\t.*\tfavourite\.added\tmsg_/;
    let listed = await cli(['webhooks', 'list', '--status', 'delivered'], env);
    for (const until = Date.now() + 10_000; !delivered.test(listed.stdout) && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 100));
      listed = await cli(['webhooks', 'list', '--status', 'delivered'], env);
    }
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, delivered);
    assert.ok(!listed.stdout.includes(secret.slice(6)), 'the secret is never printed');
    const config = await cli(['config'], env);
    assert.match(config.stdout, /WEBHOOK_SECRET=\*\*\*\*/);
    assert.ok(!config.stdout.includes(secret.slice(6)));
    const replayed = await cli(['webhooks', 'replay', '--since', '1h'], env);
    assert.equal(replayed.stdout.trim(), '1 delivery will be sent again');
    assert.deepEqual(await cli(['webhooks', 'replay'], env), {
      code: 2,
      stdout: '',
      stderr: 'souk: webhooks replay: missing --since T; see souk webhooks replay --help\n',
    });
  });
});
