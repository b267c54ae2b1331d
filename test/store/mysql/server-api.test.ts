/**
 * The server API on a WordPress site's tables (MariaDB), through a real listening server: the
 * routes that would write the site's users and listings answer 409 and change nothing; tokens,
 * disable and enable, export, erasure, reports, message removal and the deliveries' retry work, and are audited.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { newServerKey, serverKeyDigest } from '../../../src/auth/server-keys.js';
import { SITE_CATALOG_MESSAGE } from '../../../src/http/errors.js';
import { startTestSouk } from '../../helpers/souk.js';
import { until } from '../../helpers/until.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';

const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';
const { alice: ALICE, bob: BOB, carol: CAROL } = SITE_USERS;
const IPHONE = SITE_LISTINGS.iphone;

describe("the server API on a WordPress site's tables", { skip }, () => {
  it("answers 409 for the site's users and listings, and serves the rest", async () => {
    const site = await wordpressDatabase();
    const t = await startTestSouk({ DATABASE_URL: site.url, SETTINGS_REFRESH_MS: '100' }, null);
    const address = await t.listen();
    const key = newServerKey();
    assert.ok(await t.souk.store.serverKeys.add('backend', serverKeyDigest(key), Date.now()));
    await t.souk.serverKeys.refresh();
    const send = async (url: string, method: string, headers: Record<string, string>, body?: unknown) => {
      const res = await fetch(url, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json()) as any };
    };
    const server = (method: string, path: string, body?: unknown) =>
      send(`${address}/souk/v1${path}`, method, { authorization: `Bearer ${key}` }, body);
    const app = (method: string, path: string, token: string, body?: unknown) =>
      send(`${address}/wp-json/rtcl/v1${path}`, method, { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey }, body);

    const usersBefore = await site.query('select * from wp_users order by ID');
    const postsBefore = await site.query("select ID, post_title, post_status from wp_posts where post_type = 'rtcl_listing' order by ID");
    for (const [method, path, body] of [
      ['PUT', `/users/${ALICE}`, { login: 'alice', name: 'Changed' }],
      ['PUT', '/users/99', { login: 'newcomer' }],
      ['PUT', `/listings/${IPHONE}`, { owner_id: BOB, title: 'Changed' }],
      ['POST', '/import', { users: [{ id: 99, login: 'newcomer' }] }],
      ['DELETE', `/listings/${IPHONE}`, undefined],
    ] as const) {
      const res = await server(method, path, body);
      assert.equal(res.status, 409, `${method} ${path}`);
      assert.deepEqual(res.json, { status: 'error', error: 'CONFLICT', code: '409', error_message: SITE_CATALOG_MESSAGE });
    }
    assert.deepEqual(await site.query('select * from wp_users order by ID'), usersBefore);
    assert.deepEqual(
      await site.query("select ID, post_title, post_status from wp_posts where post_type = 'rtcl_listing' order by ID"),
      postsBefore,
    );

    // A token for the site's user, working on the app's routes until they are disabled.
    const issued = await server('POST', `/users/${ALICE}/tokens`, { ttl: 600 });
    assert.equal(issued.status, 200);
    const token = issued.json.jwt_token as string;
    const me = await app('GET', '/my', token);
    assert.equal(me.status, 200);
    assert.equal(me.json.username, SITE_LOGINS[ALICE]);

    // Chat, a report and the moderator's removal.
    const started = await app('POST', '/my/chat/conversation', token, { listing_id: IPHONE, text: 'Send me your bank details' });
    assert.equal(started.status, 200, JSON.stringify(started.json));
    const bob = (await server('POST', `/users/${BOB}/tokens`)).json.jwt_token as string;
    assert.equal((await app('POST', '/my/chat/report', bob, { con_id: started.json.con_id, reason: 'scam' })).status, 200);
    const reports = await server('GET', '/reports?status=open');
    assert.equal(reports.status, 200);
    assert.equal(reports.json.data.length, 1);
    assert.equal(reports.json.data[0].reported_user_id, ALICE);
    const messageId = Number(started.json.newMessage.message_id);
    assert.deepEqual((await server('DELETE', `/messages/${messageId}`)).json, {
      id: messageId,
      con_id: Number(started.json.con_id),
      removed: true,
    });
    const [row] = await site.query<{ message: string }>('select message from wp_rtcl_conversation_messages where message_id = ?', [
      messageId,
    ]);
    assert.equal(row!.message, '');
    assert.equal((await server('POST', `/reports/${reports.json.data[0].id}/close`)).json.changed, true);

    assert.equal((await server('POST', `/users/${ALICE}/disable`, { reason: 'scam' })).json.changed, true);
    await until(async () => (await app('GET', '/my', token)).status !== 200);
    assert.equal((await server('POST', `/users/${ALICE}/tokens`)).status, 409);
    assert.equal((await server('POST', `/users/${ALICE}/enable`)).json.changed, true);

    const exported = await server('GET', `/users/${CAROL}/export`);
    assert.equal(exported.status, 200);
    assert.equal(exported.json.user.login, 'carol');
    const erased = await server('DELETE', `/users/${CAROL}`);
    assert.equal(erased.status, 200);
    assert.equal(erased.json.profile_erased, false, "the wp_users row is WordPress's");
    assert.equal((await server('DELETE', `/users/${CAROL}`)).status, 200);

    // The outboxes' deliveries: listed a page at a time, a failed one sent again.
    const webhook = (status: string) =>
      site.query(
        `insert into wp_souk_webhook_outbox (message_id, url, type, user_id, payload, created_at, window_from, status, attempts, next_attempt_at, last_error)
          values ('msg_1', 'https://hooks.example.com/souk', 'message.new', ${ALICE}, '{}', 1, 1, '${status}', 9, 1, 'HTTP 503')`,
      );
    await webhook('failed');
    await webhook('delivered');
    await site.query(
      `insert into wp_souk_mail_outbox (user_id, con_id, first_message_id, last_message_id, created_at, status, attempts, next_attempt_at)
        values (${BOB}, 1, 1, 1, 1, 'failed', 5, 1)`,
    );
    const page = await server('GET', '/deliveries?kind=webhook&limit=1');
    assert.equal(page.json.data[0].status, 'delivered');
    const rest = await server('GET', `/deliveries?kind=webhook&limit=1&cursor=${page.json.next_cursor}`);
    const failedId = rest.json.data[0].id as string;
    assert.equal(rest.json.data[0].status, 'failed');
    assert.equal((await server('GET', '/deliveries?kind=webhook&status=failed')).json.data.length, 1);
    assert.equal((await server('POST', `/deliveries/${failedId}/retry`)).json.status, 'pending');
    assert.equal((await server('POST', `/deliveries/${failedId}/retry`)).status, 409);
    assert.equal((await server('POST', `/deliveries/${page.json.data[0].id}/retry`)).status, 409);
    assert.equal((await server('POST', '/deliveries/push:999999/retry')).status, 404);
    const [mail] = (await server('GET', '/deliveries?kind=mail&status=failed')).json.data;
    assert.equal((await server('POST', `/deliveries/${mail.id}/retry`)).json.status, 'pending');

    const actions = (await t.souk.store.audit.list({ limit: 100 })).map((r) => `${r.actor.name} ${r.action} ${r.targetId}`).reverse();
    assert.deepEqual(actions, [
      `backend user.token ${ALICE}`,
      `backend user.token ${BOB}`,
      `backend message.delete ${messageId}`,
      `backend report.close ${reports.json.data[0].id}`,
      `backend user.disable ${ALICE}`,
      `backend user.enable ${ALICE}`,
      `backend user.export ${CAROL}`,
      `backend user.erase ${CAROL}`,
      `backend user.erase ${CAROL}`,
      `backend delivery.retry ${failedId.split(':')[1]}`,
      `backend delivery.retry ${mail.id.split(':')[1]}`,
    ]);
  });
});
