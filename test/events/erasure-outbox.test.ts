/**
 * What an erasure leaves in the other users' outboxes (docs/safety.md, "A user's data"): their
 * webhook and push rows that carry the erased user's words or profile are deleted with the
 * erasure (`souk users erase`, the real CLI), so `souk webhooks replay` cannot send them again;
 * delivered webhooks leave the outbox after WEBHOOK_RETENTION_S. On SQLite, and on PostgreSQL
 * with TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { expoReceiver } from '../helpers/expo-receiver.js';
import { webhookReceiver } from '../helpers/webhook-receiver.js';
import { runCli } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

const API = '/wp-json/rtcl/v1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WORDS = 'my number is 0600 123 456';

describe('an erasure and the outboxes', () => {
  it("deletes the other side's webhook and push rows that carry the erased user, and replay sends none of them", async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const hooks = await webhookReceiver(secret);
    const expo = await expoReceiver();
    const t = await startTestSouk({
      WEBHOOK_URLS: hooks.url,
      WEBHOOK_SECRET: secret,
      EXPO_PUSH_URL: expo.url,
      PUSH_RETRY_BASE_MS: '60000',
    });
    const base = await t.listen();
    const post = (as: number, path: string, body: unknown) =>
      fetch(`${base}${API}/${path}`, {
        method: 'POST',
        headers: { ...t.auth(as), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    assert.equal((await post(USERS.youssef, 'push-notification/register', { push_token: 'ExponentPushToken[youssef]' })).status, 200);
    // Expo does not answer: Youssef's push of Amina's words waits in the outbox.
    expo.state.mode = 'down';
    const started = await post(USERS.amina, 'my/chat/conversation', { listing_id: LISTINGS.bike, text: WORDS });
    assert.equal(started.status, 200);
    const conId = ((await started.json()) as { con_id: number }).con_id;
    assert.equal((await post(USERS.youssef, 'my/chat/message', { con_id: conId, text: 'Thanks, I will call' })).status, 200);
    await until(() => hooks.received.length >= 3);
    await until(async () => (await t.souk.store.webhooks!.list({ limit: 100 })).every((d) => d.status === 'delivered'));
    const carriesAmina = (payload: string) => payload.includes(WORDS) || payload.toLowerCase().includes('amina@example.com');
    const webhookRows = async () => (await t.souk.store.webhooks!.list({ limit: 100 })).filter((d) => d.userId !== USERS.amina);
    assert.ok(
      (await webhookRows()).some((d) => carriesAmina(d.payload)),
      'the test sees the rows it expects gone',
    );
    assert.ok((await t.souk.store.pushOutbox!.list(10)).some((d) => d.payload.includes(WORDS)));

    const env = { DATABASE_URL: t.database.url };
    const erased = await runCli(['users', 'erase', String(USERS.amina)], env);
    assert.equal(erased.code, 0, erased.stderr);
    // Youssef's rows that carried her words or profile are gone; those that name her by id only stay.
    const left = await webhookRows();
    assert.deepEqual(
      left.filter((d) => carriesAmina(d.payload)).map((d) => d.type),
      [],
    );
    assert.ok(left.length > 0 && left.every((d) => d.type === 'conversation.unread'), JSON.stringify(left.map((d) => d.type)));
    assert.deepEqual(
      (await t.souk.store.pushOutbox!.list(10)).filter((d) => d.payload.includes(WORDS)),
      [],
    );

    // A replay sends what is left, none of it hers.
    const before = hooks.received.length;
    const replayed = await runCli(['webhooks', 'replay', '--since', '1h'], env);
    assert.equal(replayed.code, 0, replayed.stderr);
    assert.equal(replayed.stdout, `${left.length} deliver${left.length === 1 ? 'y' : 'ies'} will be sent again\n`);
    await until(() => hooks.received.length >= before + left.length);
    await sleep(300);
    const again = hooks.received.slice(before).map((r) => JSON.stringify(r.body));
    assert.equal(again.length, left.length);
    assert.deepEqual(again.filter(carriesAmina), []);
  });

  it('deletes delivered webhooks older than WEBHOOK_RETENTION_S when a server starts, and keeps pending ones', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const hooks = await webhookReceiver(secret);
    const t = await startTestSouk({ WEBHOOK_URLS: hooks.url, WEBHOOK_SECRET: secret });
    await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' });
    await until(async () => {
      const rows = await t.souk.store.webhooks!.list({ limit: 100 });
      return rows.length >= 2 && rows.every((d) => d.status === 'delivered');
    });
    const rows = await t.souk.store.webhooks!.list({ limit: 100 });
    const day = 86_400_000;
    // One delivered 8 days ago, one 6 days ago, one written 8 days ago still pending.
    const [old, recent, pending] = rows.map((d) => d.id);
    await t.souk.store.db
      .updateTable('webhook_outbox')
      .set({ created_at: Date.now() - 8 * day })
      .where('id', '=', old!)
      .execute();
    await t.souk.store.db
      .updateTable('webhook_outbox')
      .set({ created_at: Date.now() - 6 * day })
      .where('id', '=', recent!)
      .execute();
    if (pending !== undefined) {
      await t.souk.store.db
        .updateTable('webhook_outbox')
        .set({ created_at: Date.now() - 8 * day, status: 'failed' })
        .where('id', '=', pending)
        .execute();
    }
    // Another server on the database prunes at its start (then hourly).
    await startTestSouk({ DATABASE_URL: t.database.url, WEBHOOK_URLS: hooks.url, WEBHOOK_SECRET: secret }, null);
    await until(async () => !(await t.souk.store.webhooks!.list({ limit: 100 })).some((d) => d.id === old));
    const kept = (await t.souk.store.webhooks!.list({ limit: 100 })).map((d) => d.id).sort((a, b) => a - b);
    assert.deepEqual(
      kept,
      [recent!, ...(pending === undefined ? [] : [pending])].sort((a, b) => a - b),
    );
  });
});
