/**
 * A sender disabled right after writing (docs/mail.md, docs/events.md): the mail and the push of
 * what they wrote are decided when they are sent, and a sender closed by then (`souk users
 * disable`, the real CLI) is neither mailed about nor pushed. On SQLite, and on PostgreSQL with
 * TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { expoReceiver } from '../helpers/expo-receiver.js';
import { smtpReceiver } from '../helpers/smtp-receiver.js';
import { runCli } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

const API = '/wp-json/rtcl/v1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startOverHttp(t: TestSouk, base: string, from: number, text: string) {
  const reply = await fetch(`${base}${API}/my/chat/conversation`, {
    method: 'POST',
    headers: { ...t.auth(from), 'content-type': 'application/json' },
    body: JSON.stringify({ listing_id: LISTINGS.bike, text }),
  });
  assert.equal(reply.status, 200, await reply.clone().text());
  return (await reply.json()) as { con_id: number };
}

async function disable(t: TestSouk, userId: number) {
  const run = await runCli(['users', 'disable', String(userId)], { DATABASE_URL: t.database.url });
  assert.equal(run.code, 0, run.stderr);
}

describe('a sender disabled right after writing', () => {
  it('is not mailed about', async () => {
    const smtp = await smtpReceiver();
    const t = await startTestSouk({ SMTP_URL: smtp.url, MAIL_FROM: 'Souk <noreply@souk.example>', MAIL_DELAY_S: '5' });
    const base = await t.listen();
    await startOverHttp(t, base, USERS.amina, 'Send me your bank details');
    await disable(t, USERS.amina);
    // The command answered within the delay: the mail was not due yet.
    assert.equal(smtp.mails.length, 0);
    await until(async () => (await t.souk.store.mailOutbox!.list({ limit: 10 })).every((d) => d.status !== 'pending'), 15_000);
    const [row] = await t.souk.store.mailOutbox!.list({ limit: 10 });
    assert.deepEqual([row!.status, row!.lastError], ['skipped', 'sender disabled']);
    await sleep(300);
    assert.equal(smtp.mails.length, 0);
  });

  it('is not pushed', async () => {
    const expo = await expoReceiver();
    const t = await startTestSouk({ EXPO_PUSH_URL: expo.url, PUSH_RETRY_BASE_MS: '200' });
    const base = await t.listen();
    const registered = await t.post(
      `${API}/push-notification/register`,
      { push_token: 'ExponentPushToken[youssef]' },
      t.auth(USERS.youssef),
    );
    assert.equal(registered.statusCode, 200, registered.body);
    // Expo does not answer at first: the push waits in the outbox while the sender is disabled.
    expo.state.mode = 'down';
    await startOverHttp(t, base, USERS.amina, 'Send me your bank details');
    await until(() => expo.state.refused >= 1, 15_000);
    await disable(t, USERS.amina);
    expo.state.mode = 'ok';
    await until(async () => (await t.souk.store.pushOutbox!.list(10)).every((d) => d.status !== 'pending'), 15_000);
    const rows = await t.souk.store.pushOutbox!.list(10);
    assert.deepEqual(
      rows.map((r) => [r.status, r.lastError]),
      [['skipped', 'sender disabled']],
    );
    assert.equal(expo.messages().length, 0);
  });
});
