/**
 * The abuse limits on a WordPress site (docs/safety.md): they hold although the plugin's tables
 * keep whole seconds, the site's `wp_users.user_registered` (UTC) dates an account, and one younger
 * than a day gets a quarter of each limit. On MariaDB, with the recorded site.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, type TestSouk } from '../../helpers/souk.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';

const JWT_SECRET = 'souk-abuse-test-secret-0123456789abcdef';
const { alice, bob, carol } = SITE_USERS;
const { iphone, table, laptop } = SITE_LISTINGS;

/** A POST as the site's user, with a token Souk signs for their login. */
function post(t: TestSouk, path: string, as: number, body: unknown) {
  const headers = {
    authorization: `Bearer ${t.token(as, { login: SITE_LOGINS[as] })}`,
    'x-api-key': t.apiKey,
    'content-type': 'application/json',
  };
  return t.app.inject({ method: 'POST', url: `/wp-json/rtcl/v1/${path}`, headers, payload: JSON.stringify(body) });
}

describe(
  'abuse limits on a WordPress site',
  { skip: mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable' },
  () => {
    it("holds each limit, and reads an account's age from user_registered: a quarter for alice, registered an hour ago", async () => {
      const site = await wordpressDatabase('wordpress-seeded.sql');
      // In UTC, as WordPress writes it.
      await site.query('update wp_users set user_registered = utc_timestamp() - interval 1 hour where ID = ?', [alice]);
      const t = await startTestSouk(
        { DATABASE_URL: site.url, JWT_SECRET, MESSAGES_PER_MINUTE: '4', NEW_CONVERSATIONS_PER_HOUR: '4' },
        null,
      );

      const started = await post(t, 'my/chat/conversation', alice, { listing_id: iphone, text: 'Still for sale?' });
      assert.equal(started.statusCode, 200, started.body);
      const conId = Number(JSON.parse(started.body).con_id);
      assert.equal((await post(t, 'my/chat/conversation', alice, { listing_id: laptop, text: 'And this?' })).statusCode, 429);
      assert.equal((await post(t, 'my/chat/message', alice, { con_id: conId, text: 'Hello?' })).statusCode, 429);
      // Bob, registered days before: his whole limit, counted although the site keeps whole seconds.
      for (const text of ['Yes', 'It is', 'Come and see', 'Today?']) {
        const res = await post(t, 'my/chat/message', bob, { con_id: conId, text });
        assert.equal(res.statusCode, 200, res.body);
      }
      assert.equal((await post(t, 'my/chat/message', bob, { con_id: conId, text: 'Hello?' })).statusCode, 429);
      // Carol, registered days before too: more than one new conversation.
      assert.equal((await post(t, 'my/chat/conversation', carol, { listing_id: iphone, text: 'Hi' })).statusCode, 200);
      assert.equal((await post(t, 'my/chat/conversation', carol, { listing_id: table, text: 'Hi' })).statusCode, 200);
      await t.close();
    });
  },
);
