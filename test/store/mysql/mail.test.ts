/**
 * E-mail when a message waits, on a WordPress database (the MySQL store): the mail comes from the
 * site's blogname and admin_email with the plugin's subject; Souk writes the plugin's
 * `online_status` user meta for a user it serves, and reads it: a user active on the site (the
 * meta fresh) is online, so no mail; my/notifications keeps its choice in the user meta. GET
 * my/chat/presence reads the same `online_status` for the users who share one of the plugin's
 * conversations with the caller, and `show_presence` is the user meta `souk_show_presence`; typing
 * reaches the other participant's stream.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, type TestSouk } from '../../helpers/souk.js';
import { smtpReceiver } from '../../helpers/smtp-receiver.js';
import { until } from '../../helpers/until.js';
import { SseClient } from '../../helpers/sse.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';

const JWT_SECRET = 'souk-mysql-mail-test-secret-0123456789';
const API = '/wp-json/rtcl/v1';
const { alice: ALICE, bob: BOB, carol: CAROL } = SITE_USERS;
const { iphone: IPHONE, laptop: LAPTOP } = SITE_LISTINGS;
const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';

const auth = (t: TestSouk, userId: number) => ({
  authorization: `Bearer ${t.token(userId, { login: SITE_LOGINS[userId] })}`,
  'x-api-key': t.apiKey,
});

describe('mail on a WordPress site', { skip }, () => {
  it("mails from the site's blogname and admin_email, and reads and writes the plugin's online_status", async () => {
    const smtp = await smtpReceiver();
    const site = await wordpressDatabase('wordpress-seeded.sql');
    const t = await startTestSouk(
      { DATABASE_URL: site.url, JWT_SECRET, SMTP_URL: smtp.url, MAIL_DELAY_S: '1', ONLINE_WINDOW_S: '300', MAIL_MIN_INTERVAL_S: '0' },
      null,
    );
    const outbox = () => t.souk.store.mailOutbox!.list({ limit: 10 });
    const meta = async (userId: number, key: string) =>
      (
        await site.query<{ meta_value: string }>('select meta_value from wp_usermeta where user_id = ? and meta_key = ?', [userId, key])
      ).map((r) => r.meta_value);

    const before = Math.floor(Date.now() / 1000);
    const started = await t.post(
      `${API}/my/chat/conversation`,
      { listing_id: IPHONE, text: 'Is it still available? 2 > 1 & boxed' },
      auth(t, ALICE),
    );
    assert.equal(started.statusCode, 200, started.body);
    await until(() => smtp.mails.length >= 1, 15_000);
    const [mail] = smtp.mails;
    assert.match(mail!.subject, /^\[Souk Original\] New Messages Waiting \(.+\)$/);
    assert.equal(mail!.from, 'admin@example.test');
    assert.match(mail!.headers.get('from')!, /Souk Original/);
    assert.deepEqual(mail!.to, ['bob@example.test']);
    assert.match(mail!.html, /Is it still available\? 2 &gt; 1 &amp; boxed/);

    // Alice made a request: her online_status is, as the plugin writes it, the time of it (the site's
    // local timestamp, UTC here) plus the window, in seconds.
    await until(async () => (await meta(ALICE, 'online_status')).length === 1);
    const [seen] = await meta(ALICE, 'online_status');
    assert.match(seen!, /^\d+$/);
    assert.ok(Number(seen) >= before + 300 && Number(seen) <= Math.ceil(Date.now() / 1000) + 300, seen);

    // Carol is active on the site (the plugin wrote her online_status just now): no mail to her.
    await site.query("insert into wp_usermeta (user_id, meta_key, meta_value) values (?, 'online_status', ?)", [
      CAROL,
      String(Math.floor(Date.now() / 1000) + 300),
    ]);
    const toCarol = await t.post(`${API}/my/chat/conversation`, { listing_id: LAPTOP, text: 'Still for sale?' }, auth(t, ALICE));
    assert.equal(toCarol.statusCode, 200, toCarol.body);
    const conId = toCarol.json().con_id as number;
    await until(async () => (await outbox()).filter((d) => d.conId === conId).every((d) => d.status !== 'pending'), 15_000);
    assert.deepEqual(
      (await outbox()).filter((d) => d.conId === conId).map((d) => [d.userId, d.status, d.lastError]),
      [[CAROL, 'skipped', 'recipient online']],
    );
    assert.equal(smtp.mails.length, 1);

    // The choice of mail is the user meta souk_email_notifications.
    const off = await t.app.inject({
      method: 'PUT',
      url: `${API}/my/notifications`,
      payload: { email: false },
      headers: auth(t, BOB),
    });
    assert.deepEqual(off.json(), { email: false, show_presence: true });
    assert.deepEqual(await meta(BOB, 'souk_email_notifications'), ['no']);
    const on = await t.app.inject({ method: 'PUT', url: `${API}/my/notifications`, payload: { email: true }, headers: auth(t, BOB) });
    assert.deepEqual(on.json(), { email: true, show_presence: true });
    assert.deepEqual(await meta(BOB, 'souk_email_notifications'), ['yes']);
  });

  it("answers presence from the plugin's online_status for chat partners only, hides it by the user meta, and streams typing", async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    const t = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET, PUSH_NOTIFICATIONS: 'false' }, null);
    const started = await t.post(`${API}/my/chat/conversation`, { listing_id: IPHONE, text: 'Still for sale?' }, auth(t, ALICE));
    assert.equal(started.statusCode, 200, started.body);
    const conId = started.json().con_id as number;
    const presence = (userId: number, ids: string) =>
      t.app.inject({ url: `${API}/my/chat/presence?user_ids=${ids}`, headers: auth(t, userId) });
    // Bob is active on the site (the plugin wrote his online_status); Carol shares no conversation with Alice.
    await site.query("insert into wp_usermeta (user_id, meta_key, meta_value) values (?, 'online_status', ?)", [
      BOB,
      String(Math.floor(Date.now() / 1000) + 300),
    ]);
    const [bob, ...others] = (await presence(ALICE, `${BOB},${CAROL}`)).json();
    assert.deepEqual(others, []);
    assert.equal(bob.user_id, BOB);
    assert.equal(bob.online, true);
    assert.match(bob.last_seen, /^\d{4}-\d\d-\d\d \d\d:\d[05]:00$/);

    const hidden = await t.app.inject({
      method: 'PUT',
      url: `${API}/my/notifications`,
      payload: { show_presence: false },
      headers: auth(t, BOB),
    });
    assert.deepEqual(hidden.json(), { email: true, show_presence: false });
    assert.deepEqual(
      (
        await site.query<{ meta_value: string }>(
          "select meta_value from wp_usermeta where user_id = ? and meta_key = 'souk_show_presence'",
          [BOB],
        )
      ).map((r) => r.meta_value),
      ['no'],
    );
    assert.deepEqual((await presence(ALICE, `${BOB}`)).json(), [{ user_id: BOB, online: false, last_seen: null }]);

    const base = await t.listen();
    const stream = await SseClient.open(`${base}${API}/my/events`, auth(t, BOB));
    assert.equal(stream.status, 200);
    await until(() => t.souk.streams!.isStreaming(BOB));
    assert.equal((await t.post(`${API}/my/chat/typing`, { con_id: conId }, auth(t, ALICE))).statusCode, 204);
    const [typing] = await stream.take(1);
    assert.deepEqual([typing!.event, JSON.parse(typing!.data)], ['conversation.typing', { conversation_id: conId, user_id: ALICE }]);
    stream.close();
  });
});
