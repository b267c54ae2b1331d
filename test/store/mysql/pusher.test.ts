/**
 * Pusher on a WordPress site (docs/pusher.md): the recorded site with its `rtcl_chat_settings`
 * switched on (PUSHER_URL naming only where the app is: a Pusher-protocol server on a loopback
 * port), followed as the site changes them; Souk's writes are published to the site's app in the
 * plugin's shapes, a message the plugin stored in its own tables is not (the plugin publishes its
 * own). GET config names the site's key and cluster. On MariaDB.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { serialize, unserialize } from 'php-serialize';
import { startTestSouk } from '../../helpers/souk.js';
import { until } from '../../helpers/until.js';
import { pusherServer, TEST_PUSHER_APP } from '../../helpers/pusher-server.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';

const API = '/wp-json/rtcl/v1';
const JWT_SECRET = 'souk-mysql-pusher-test-secret-0123456789';
const { alice: ALICE, bob: BOB } = SITE_USERS;
const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';

describe("Pusher on a WordPress site's own settings", { skip }, () => {
  it("publishes Souk's writes to the site's app once switched on, not the plugin's own messages", async () => {
    const server = await pusherServer();
    const site = await wordpressDatabase('wordpress-seeded.sql');
    // Where the app is: the test server stands in for api-eu.pusher.com. Its own key and secret are the site's.
    const t = await startTestSouk(
      {
        DATABASE_URL: site.url,
        JWT_SECRET,
        SETTINGS_REFRESH_MS: '100',
        PUSHER_URL: `http://nobody:nothing@127.0.0.1:${server.port}/apps/0`,
      },
      null,
    );
    const auth = (userId: number) => ({
      authorization: `Bearer ${t.token(userId, { login: SITE_LOGINS[userId] })}`,
      'x-api-key': t.apiKey,
    });
    const config = async () => (await t.app.inject({ method: 'GET', url: `${API}/config`, headers: { 'x-api-key': t.apiKey } })).json();

    // Off, as recorded: nothing is written or sent.
    const first = await t.post(`${API}/my/chat/conversation`, { listing_id: SITE_LISTINGS.iphone, text: 'Before Pusher' }, auth(ALICE));
    assert.equal(first.statusCode, 200, first.body);
    const conId: number = first.json().con_id;
    assert.deepEqual(await t.souk.store.pusherOutbox!.list({ limit: 10 }), []);
    assert.equal('pusher' in (await config()).chat, false);

    // The site switches Pusher on: followed within SETTINGS_REFRESH_MS.
    const chat = await site.query<{ option_value: string }>("select option_value from wp_options where option_name = 'rtcl_chat_settings'");
    const settings = {
      ...(unserialize(chat[0]!.option_value) as Record<string, unknown>),
      pusher_enable: 'yes',
      pusher_app_id: TEST_PUSHER_APP.appId,
      pusher_app_key: TEST_PUSHER_APP.key,
      pusher_app_secret: TEST_PUSHER_APP.secret,
      pusher_app_cluster: 'eu',
    };
    await site.query("update wp_options set option_value = ? where option_name = 'rtcl_chat_settings'", [serialize(settings)]);
    await until(async () => (await config()).chat.pusher?.app_key === TEST_PUSHER_APP.key);
    assert.deepEqual((await config()).chat.pusher, { app_key: TEST_PUSHER_APP.key, app_cluster: 'eu' });
    // The sender's app follows the site on a timer of its own, not GET config's: read now, as its next poll would.
    await t.souk.pusherApps.refresh();
    assert.equal(t.souk.pusherApps.on(), true);

    // Souk's answer is published to the buyer's channel, ids as integers, the site's local time.
    const answer = await t.post(
      `${API}/my/chat/message`,
      { con_id: conId, listing_id: SITE_LISTINGS.iphone, text: 'Through Souk' },
      auth(BOB),
    );
    assert.equal(answer.statusCode, 200, answer.body);
    await until(() => server.on(`chat-user-${ALICE}`).length >= 2);
    const [message, unread] = server.on(`chat-user-${ALICE}`);
    assert.equal(message!.name, 'message.new');
    const m = JSON.parse(message!.data).message;
    assert.deepEqual(
      [m.message_id, m.con_id, m.source_id, m.message, m.is_read, m.type],
      [Number(answer.json().message_id), conId, BOB, 'Through Souk', 0, 'text'],
    );
    const [stored] = await site.query<{ created_at: string }>('select created_at from wp_rtcl_conversation_messages where message_id = ?', [
      m.message_id,
    ]);
    assert.equal(m.created_at, stored!.created_at);
    // The plugin's badge count: every unread message of the user, here the answer alone.
    assert.deepEqual(
      [unread!.name, JSON.parse(unread!.data)],
      ['conversation.unread', { user_id: ALICE, count: 1, conversation_id: conId }],
    );

    // A message the plugin stored (a web user on the site): the plugin publishes its own; Souk does not.
    await site.query(
      "insert into wp_rtcl_conversation_messages (con_id, source_id, message, type, is_read, created_at) values (?, ?, 'From the website', 'text', 0, now())",
      [conId, ALICE],
    );
    const before = server.events.length;
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(server.events.length, before);
    assert.ok(server.events.every((e) => !e.data.includes('From the website')));
    assert.deepEqual(server.refused, []);
  });
});
