/**
 * Reports and bad words on a WordPress database (docs/safety.md): listing/report counts
 * in the plugin's post meta `_abuse_report_by_visitor` (from the value the site has, as PHP's
 * absint reads it; reports at once each count), every report in `souk_reports`; the bad words are
 * the plugin's own `bad_words` in the serialised `rtcl_chat_settings`, which `souk settings set`
 * writes without touching the option's other items.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unserialize } from 'php-serialize';
import { startTestSouk } from '../../helpers/souk.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';

const JWT_SECRET = 'souk-reports-test-secret-0123456789abcdef';
const { alice: ALICE, bob: BOB, carol: CAROL } = SITE_USERS;
const { iphone: IPHONE, table: TABLE } = SITE_LISTINGS;
const API = '/wp-json/rtcl/v1';
const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';
const bad = (error_message: string) => ({ status: 'error', error: 'BADREQUEST', code: '400', error_message });

describe('reports and bad words on a WordPress site', { skip }, () => {
  it('counts in _abuse_report_by_visitor as the plugin, stores every report, and reads the plugin’s bad words', async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    const t = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET }, null);
    const auth = (user: number) => ({ authorization: `Bearer ${t.token(user, { login: SITE_LOGINS[user] })}`, 'x-api-key': t.apiKey });
    const alice = auth(ALICE);
    const carol = auth(CAROL);
    const meta = async (post: number) =>
      (
        await site.query<{ meta_value: string }>(
          "select meta_value from wp_postmeta where post_id = ? and meta_key = '_abuse_report_by_visitor' order by meta_id",
          [post],
        )
      ).map((r) => r.meta_value);

    // No meta yet: the first report writes 1; then reports at once, from two users: one report
    // open per reporter and listing, so Carol's first counts and every repeat answers the count as it is.
    let res = await t.post(`${API}/listing/report`, { listing_id: IPHONE, message: 'Scam' }, alice);
    assert.deepEqual([res.statusCode, res.body], [200, '1']);
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) => t.post(`${API}/listing/report`, { listing_id: IPHONE }, i % 2 ? alice : carol)),
    );
    assert.deepEqual(
      replies.map((r) => r.statusCode),
      [200, 200, 200, 200, 200, 200],
    );
    assert.equal(Math.max(...replies.map((r) => Number(r.body))), 2);
    assert.deepEqual(await meta(IPHONE), ['2']);
    // A NUL in the words: refused as in chat text, nothing counted.
    res = await t.post(`${API}/listing/report`, { listing_id: IPHONE, message: 'x\u0000' }, auth(SITE_USERS.carol));
    assert.deepEqual([res.statusCode, res.json()], [400, bad('message must not contain the NUL character (U+0000).')]);
    // A count the site wrote, read as PHP's absint.
    await site.query("insert into wp_postmeta (post_id, meta_key, meta_value) values (?, '_abuse_report_by_visitor', '12 reports')", [
      TABLE,
    ]);
    res = await t.post(`${API}/listing/report`, { listing_id: TABLE, message: 'Fake' }, alice);
    assert.deepEqual([res.statusCode, res.body], [200, '13']);
    res = await t.post(`${API}/listing/report`, { listing_id: TABLE, message: 'Fake!' }, alice);
    assert.deepEqual([res.statusCode, res.body], [200, '13'], 'a repeat');
    assert.deepEqual(await meta(TABLE), ['13']);
    // The owner may not report; an unknown listing is "Listing not found.".
    res = await t.post(`${API}/listing/report`, { listing_id: IPHONE }, auth(BOB));
    assert.deepEqual([res.statusCode, res.json()], [400, bad('You are not permitted to report.')]);
    res = await t.post(`${API}/listing/report`, { listing_id: 99999 }, alice);
    assert.deepEqual([res.statusCode, res.json()], [400, bad('Listing not found.')]);
    assert.deepEqual(await meta(IPHONE), ['2']);

    // A conversation's report keeps its messages once each; a repeat stores nothing.
    const started = (await t.post(`${API}/my/chat/conversation`, { listing_id: IPHONE, text: 'Still for sale?' }, alice)).json();
    res = await t.post(`${API}/my/chat/report`, { con_id: started.con_id, reason: 'rude' }, auth(BOB));
    assert.deepEqual([res.statusCode, res.json()], [200, { reported: true }]);
    res = await t.post(`${API}/my/chat/report`, { con_id: started.con_id, reason: 'rude\u0000' }, auth(BOB));
    assert.deepEqual([res.statusCode, res.json()], [400, bad('reason must not contain the NUL character (U+0000).')]);
    res = await t.post(`${API}/my/chat/report`, { con_id: started.con_id, reason: 'very rude' }, auth(BOB));
    assert.deepEqual([res.statusCode, res.json()], [200, { reported: true }]);
    res = await t.post(`${API}/my/chat/report`, { con_id: started.con_id, reason: 'spam' }, alice);
    assert.deepEqual([res.statusCode, res.json()], [200, { reported: true }]);
    const copies = await site.query<{ message_id: number }>('select message_id from wp_souk_report_message_copies');
    assert.equal(copies.length, 1);
    assert.equal((await site.query('select report_id from wp_souk_report_messages')).length, 2);
    const stored = (await t.souk.store.reports.list({ open: true, limit: 100 })).slice(1);
    assert.equal(stored.length, 4);
    assert.deepEqual(
      [stored[0]!.kind, stored[0]!.reporterId, stored[0]!.reportedUserId, stored[0]!.messages.map((m) => m.text)],
      ['conversation', BOB, ALICE, ['Still for sale?']],
    );
    assert.equal(await t.souk.store.reports.close(stored[0]!.id, Date.now()), 'closed');
    assert.equal((await t.souk.store.reports.list({ open: true, limit: 100 })).length, 4);

    // The plugin's bad words, as the site stores them.
    const chatSettings = async () =>
      unserialize(
        (await site.query<{ option_value: string }>("select option_value from wp_options where option_name = 'rtcl_chat_settings'"))[0]!
          .option_value,
      ) as Record<string, unknown>;
    const settings = await chatSettings();
    await site.query("update wp_options set option_value = ? where option_name = 'rtcl_chat_settings'", [
      `a:4:{s:6:"enable";s:3:"yes";s:20:"unread_message_email";s:3:"yes";s:37:"remove_inactive_conversation_duration";i:30;s:9:"bad_words";s:16:"scam, gift card ";}`,
    ]);
    await t.souk.settings.refresh();
    res = await t.post(`${API}/my/chat/message`, { con_id: started.con_id, text: 'Pay by ＧＩＦＴ card' }, alice);
    assert.deepEqual([res.statusCode, res.json()], [400, bad('Your message contains inappropriate words (gift card).')]);
    // souk settings set bad_words writes the plugin's item, and keeps the others.
    await t.souk.store.settings.set('bad_words', 'western union');
    await t.souk.settings.refresh();
    assert.deepEqual(await chatSettings(), { ...settings, bad_words: 'western union' });
    res = await t.post(`${API}/my/chat/message`, { con_id: started.con_id, text: 'Pay by gift card' }, alice);
    assert.equal(res.statusCode, 200, res.body);
    await t.souk.store.settings.set('bad_words_action', 'mask');
    await t.souk.settings.refresh();
    res = await t.post(`${API}/my/chat/message`, { con_id: started.con_id, text: 'Western Union only' }, alice);
    assert.equal(res.json().message, '************* only');
  });
});
