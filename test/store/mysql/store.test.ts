/**
 * The MySQL store's own parts, each on a WordPress database of its own: the 2.x chat tables
 * (without a message's type, attachments, meta and a conversation's updated_at), times in the
 * site's local time, the site's options (API key, REST switch, presentation), a lost database
 * answered 503 and recovered from by itself, and a clean close while the database is cut off.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatAmount } from '../../../src/present/price.js';
import { siteClock, siteTimeZone, readSiteOptions } from '../../../src/store/mysql/site.js';
import { constrain } from '../../../src/store/mysql/media.js';
import { isMysqlUnavailable } from '../../../src/store/mysql/errors.js';
import { PATHS, startTestSouk } from '../../helpers/souk.js';
import { TcpProxy } from '../../helpers/tcp-proxy.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, TEST_MYSQL_URL, wordpressDatabase } from '../../helpers/wordpress.js';

const JWT_SECRET = 'souk-store-test-secret-0123456789abcdef';
const { alice: ALICE, bob: BOB } = SITE_USERS;
const IPHONE = SITE_LISTINGS.iphone;
const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';

/** A Souk on a fresh site's database reached through a proxy the test can stop or silence. */
async function soukBehindProxy() {
  const site = await wordpressDatabase('wordpress-seeded.sql');
  const target = new URL(TEST_MYSQL_URL);
  const proxy = new TcpProxy(target.hostname, Number(target.port || 3306));
  await proxy.start();
  after(() => proxy.stop());
  const url = new URL(site.url);
  url.host = `127.0.0.1:${proxy.port}`;
  const t = await startTestSouk({ DATABASE_URL: url.toString(), JWT_SECRET, DB_CONNECT_TIMEOUT_MS: '1000' }, null);
  return { t, proxy };
}

describe('site options and times, without a database', () => {
  it('takes the zone from timezone_string, else gmt_offset as a fixed offset', () => {
    assert.equal(siteTimeZone('Europe/Paris', '0'), 'Europe/Paris');
    assert.equal(siteTimeZone('', '0'), 'UTC');
    assert.equal(siteTimeZone('', '5.5'), '+05:30');
    assert.equal(siteTimeZone('', '-3'), '-03:00');
    assert.equal(siteTimeZone('Not/AZone', '2'), '+02:00');
  });

  it('writes and reads local times as the plugin stores them', () => {
    const at = Date.parse('2026-07-01T12:00:00Z');
    for (const [zone, local] of [
      ['UTC', '2026-07-01 12:00:00'],
      ['Europe/Paris', '2026-07-01 14:00:00'],
      ['+05:30', '2026-07-01 17:30:00'],
      ['America/New_York', '2026-07-01 08:00:00'],
    ] as const) {
      const clock = siteClock(zone);
      assert.equal(clock.local(at), local, zone);
      assert.equal(clock.epoch(local), at, zone);
    }
  });

  it('builds the presentation from the options: home, permalink base, currency and the plugin position', () => {
    const site = readSiteOptions({
      siteurl: 'https://shop.example/wp',
      home: 'https://shop.example',
      permalink_structure: '/%postname%/',
      rtcl_advanced_settings: 'a:1:{s:9:"permalink";s:3:"ads";}',
      rtcl_general_currency_settings:
        'a:3:{s:8:"currency";s:3:"EUR";s:28:"currency_thousands_separator";s:1:".";s:26:"currency_decimal_separator";s:1:",";}',
      timezone_string: 'Europe/Paris',
    });
    assert.equal(site.presentation.siteUrl, 'https://shop.example');
    assert.equal(site.presentation.listingUrlTemplate, '{site_url}/ads/{slug}/');
    assert.equal(site.presentation.timeZone, 'Europe/Paris');
    assert.equal(site.uploadsUrl, 'https://shop.example/wp/wp-content/uploads');
    assert.equal(
      formatAmount('1234.5', site.presentation.price, 'negotiable'),
      '<div class="rtcl-price price-type-negotiable"><span class="rtcl-price-amount amount"><bdi><span class="rtcl-price-currencySymbol">&euro;</span>1.234,50</bdi></span></div>',
    );
    assert.equal(
      formatAmount('350', site.presentation.price, 'fixed'),
      '<div class="rtcl-price price-type-fixed"><span class="rtcl-price-amount amount"><bdi><span class="rtcl-price-currencySymbol">&euro;</span>350</bdi></span></div>',
      'a fraction of zeros is trimmed, as the plugin does',
    );
  });

  it("constrains a missing size's box as WordPress's image_downsize", () => {
    assert.deepEqual(constrain(1024, 768, 300, 300), [300, 225]);
    assert.deepEqual(constrain(1024, 768, 150, 150), [150, 113]);
    assert.deepEqual(constrain(100, 80, 300, 300), [100, 80]);
  });

  it('reads lost connections and lock timeouts as unavailable, SQL errors not', () => {
    assert.equal(isMysqlUnavailable({ code: 'PROTOCOL_CONNECTION_LOST', fatal: true }), true);
    assert.equal(isMysqlUnavailable({ code: 'ECONNREFUSED' }), true);
    assert.equal(isMysqlUnavailable({ code: 'ER_LOCK_WAIT_TIMEOUT' }), true);
    assert.equal(isMysqlUnavailable({ code: 'ER_PARSE_ERROR', fatal: false }), false);
  });
});

describe('the MySQL store on a WordPress database', { skip }, () => {
  it('serves a 2.x site, whose chat tables lack type, attachments, meta and updated_at, and writes what 2.x writes', async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    // The plugin's 2.x tables, made here from the 4.x ones (a test's own database).
    await site.query('alter table wp_rtcl_conversation_messages drop column type, drop column attachments, drop column meta');
    await site.query('alter table wp_rtcl_conversations drop column updated_at');
    const t = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET }, null);
    const headers = { authorization: `Bearer ${t.token(ALICE, { login: SITE_LOGINS[ALICE] })}`, 'x-api-key': t.apiKey };
    const started = await t.post(PATHS.start, { listing_id: IPHONE, text: 'Hi <b>Bob</b>', temp_id: 7 }, headers);
    assert.equal(started.statusCode, 200, started.body);
    const reply = started.json();
    assert.equal(reply.newMessage.message, 'Hi Bob', 'stored as the plugin stores it: tags stripped');
    assert.equal(reply.newMessage.type, 'text');
    assert.equal(reply.newMessage.temp_id, '7');
    const retried = await t.post(PATHS.start, { listing_id: IPHONE, text: 'Hi <b>Bob</b>', temp_id: 7 }, headers);
    assert.equal(retried.json().newMessage.message_id, reply.newMessage.message_id, 'a retried temp_id stores nothing new');
    const rows = await site.query<{ message: string }>('select message from wp_rtcl_conversation_messages');
    assert.deepEqual(
      rows.map((r) => r.message),
      ['Hi Bob'],
    );
    const list = await t.app.inject({ method: 'GET', url: '/wp-json/rtcl/v1/my/chat', headers });
    assert.equal(list.statusCode, 200, list.body);
    assert.equal(list.json().data[0].updated_at, reply.newMessage.created_at, "2.x: a conversation's update time is its last message's");
  });

  it('reuses a listing asked for again until the site saves its post, and reads a page of users and listings together', async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    const t = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET }, null);
    const repos = t.souk.store.repos;
    const once = await repos.listings.findById(IPHONE);
    const first = await repos.listings.findById(IPHONE);
    assert.ok(first);
    assert.deepEqual(first, once, 'read twice: the second is kept');
    assert.equal(await repos.listings.findById(IPHONE), first, 'kept while the post is unchanged');
    // A price written alone leaves the post as it was: the kept listing stays (for at most a period).
    await site.query(`update wp_postmeta set meta_value = '123' where post_id = ${IPHONE} and meta_key = 'price'`);
    assert.equal(await repos.listings.findById(IPHONE), first);
    // Saving the post (wp_update_post) moves post_modified_gmt: read again, with the new price.
    await site.query(`update wp_posts set post_modified_gmt = now() + interval 1 second where ID = ${IPHONE}`);
    const saved = await repos.listings.findById(IPHONE);
    assert.notEqual(saved, first);
    assert.equal(saved?.price, '123');
    // A title changed without the date is seen too: the post row is compared with the kept listing.
    await site.query(`update wp_posts set post_title = 'iPhone, renamed' where ID = ${IPHONE}`);
    assert.equal((await repos.listings.findById(IPHONE))?.title, 'iPhone, renamed');
    // Looked up in one turn (a chat page): each answers as alone, missing ones undefined.
    const [users, listings] = await Promise.all([
      Promise.all([ALICE, BOB, ALICE, 999_999].map((id) => repos.users.findById(id))),
      Promise.all([IPHONE, 999_999].map((id) => repos.listings.findById(id))),
    ]);
    assert.deepEqual(users[0], users[2]);
    assert.equal(users[0]?.id, ALICE);
    assert.equal(users[3], undefined);
    assert.equal(listings[0]?.title, 'iPhone, renamed');
    assert.equal(listings[1], undefined);
    const tx = await t.souk.store.transaction((r) => r.users.findById(ALICE), ALICE);
    assert.deepEqual(tx, users[0], 'a user read alone is the same as one of a page');
  });

  it("writes and answers times in the site's local time", async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    await site.query("update wp_options set option_value = 'Asia/Tokyo' where option_name = 'timezone_string'");
    const t = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET }, null);
    const headers = { authorization: `Bearer ${t.token(ALICE, { login: SITE_LOGINS[ALICE] })}`, 'x-api-key': t.apiKey };
    const before = Date.now();
    const res = await t.post(PATHS.start, { listing_id: IPHONE, text: 'Konnichiwa' }, headers);
    assert.equal(res.statusCode, 200, res.body);
    const [row] = await site.query<{ created_at: string }>('select created_at from wp_rtcl_conversation_messages');
    assert.equal(res.json().newMessage.created_at, row!.created_at, 'the reply shows the stored local time');
    const asTokyo = Date.parse(`${row!.created_at.replace(' ', 'T')}+09:00`);
    assert.ok(Math.abs(asTokyo - before) < 5000, `${row!.created_at} is Tokyo's time`);
  });

  it("follows the site's API key and REST switch, and writes them back through the settings", async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    const t = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET }, null);
    assert.equal(t.apiKey, 'a3f1c2d4-5b6e-4f70-8a9b-0c1d2e3f4a5b', "the key is the plugin's rtcl_rest_api_key");
    assert.equal(t.souk.settings.current().restApiEnabled, true);
    await site.query(
      'update wp_options set option_value = \'a:1:{s:14:"allow_rest_api";s:0:"";}\' where option_name = \'rtcl_tools_settings\'',
    );
    await t.souk.settings.refresh();
    assert.equal(t.souk.settings.current().restApiEnabled, false, 'the site switched its REST API off');
    await t.souk.store.settings.set('rest_api', 'true');
    const [tools] = await site.query<{ option_value: string }>(
      "select option_value from wp_options where option_name = 'rtcl_tools_settings'",
    );
    assert.equal(tools!.option_value, 'a:1:{s:14:"allow_rest_api";s:3:"yes";}');
    const tables = await site.query<Record<string, string>>("show tables like 'wp\\_souk\\_%'");
    assert.deepEqual(tables.map((r) => Object.values(r)[0]).sort(), [
      'wp_souk_audit_log',
      'wp_souk_event_sequences',
      'wp_souk_event_tickets',
      'wp_souk_events',
      'wp_souk_mail_outbox',
      'wp_souk_message_edits',
      'wp_souk_message_files',
      'wp_souk_message_temp_ids',
      'wp_souk_migrations',
      'wp_souk_migrations_lock',
      'wp_souk_moderation_barrier',
      'wp_souk_push_devices',
      'wp_souk_push_outbox',
      'wp_souk_pusher_outbox',
      'wp_souk_report_message_copies',
      'wp_souk_report_messages',
      'wp_souk_reports',
      'wp_souk_revoked_tokens',
      'wp_souk_server_keys',
      'wp_souk_settings',
      'wp_souk_staff',
      'wp_souk_webhook_outbox',
    ]);
  });

  it('answers 503 while the database is unreachable and serves again by itself', async () => {
    const { t, proxy } = await soukBehindProxy();
    const toggle = () => t.toggle(ALICE, { listing_id: IPHONE });
    assert.equal((await toggle()).statusCode, 200);
    const port = proxy.port;
    await proxy.stop();
    const down = await toggle();
    assert.equal(down.statusCode, 503, down.body);
    assert.equal(down.json().error, 'SERVICE_UNAVAILABLE');
    await proxy.start(port);
    let back = await toggle();
    for (let i = 0; i < 20 && back.statusCode !== 200; i++) {
      await new Promise((r) => setTimeout(r, 250));
      back = await toggle();
    }
    assert.equal(back.statusCode, 200, back.body);
  });

  it('closes cleanly while a connection it was opening is cut', async () => {
    const { t, proxy } = await soukBehindProxy();
    // The database stops answering: the connections it had are gone, and the settings' next
    // refresh (every 200 ms here) opens one that waits for a greeting that never comes.
    proxy.mode = 'blackhole';
    proxy.cutConnections();
    const opening = () => proxy.openConnections() > 0;
    for (let i = 0; i < 40 && !opening(); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(opening(), 'Souk opened no connection to the silent database');
    // It closes while that connection is still opening, which then times out (DB_CONNECT_TIMEOUT_MS).
    await t.close();
  });
});
