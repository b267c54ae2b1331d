/**
 * GET config on a WordPress site (docs/app-config.md): the values are the site's options, read as
 * the plugin reads them, and a change the site makes shows within SETTINGS_REFRESH_MS. On MariaDB.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { serialize } from 'php-serialize';
import { startTestSouk } from '../../helpers/souk.js';
import { until } from '../../helpers/until.js';
import { mysqlReachable, wordpressDatabase } from '../../helpers/wordpress.js';

const CONFIG = '/wp-json/rtcl/v1/config';
const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';

describe("GET config on a WordPress site's options", { skip }, () => {
  it("answers the site's settings, and the site's changes within the refresh period", async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    // Souk's own currency settings do not apply on a site: its options do.
    const t = await startTestSouk({ DATABASE_URL: site.url, SETTINGS_REFRESH_MS: '100', CURRENCY_CODE: 'EUR', FILES_MAX_COUNT: '2' }, null);
    const base = await t.listen();
    const get = async () => {
      const res = await fetch(base + CONFIG, { headers: { 'x-api-key': t.apiKey } });
      assert.equal(res.status, 200);
      return (await res.json()) as Record<string, any>;
    };

    const seeded = await get();
    // The seeded site: chat on (rtcl_chat_settings), no Pusher, USD on the left (rtcl_general_settings
    // names no position), gmt_offset 0 without a zone's name, WordPress's formats.
    assert.equal(seeded.chat.enable, true);
    assert.equal('pusher' in seeded.chat, false);
    assert.equal(seeded.chat.attachment.max_limit, 2, "the limits are the ones Souk enforces (the plugin's is a filter, not an option)");
    assert.equal(seeded.chat.refresh_interval, 20000);
    assert.deepEqual(seeded.currency, { id: 'USD', symbol: '&#36;', position: 'left', separator: { decimal: '.', thousand: ',' } });
    assert.deepEqual(seeded.tz, { timezone_type: 1, timezone: '+00:00' });
    assert.deepEqual(seeded.datetime_fmt, { time: 'h:mm a', date: 'MMMM D, YYYY' });
    assert.equal(seeded.start_of_week, 1);
    assert.deepEqual(seeded.badges.new, { label: 'New', listing: false, single: false, color: { bg: '', text: '' } });

    const setOption = (name: string, value: string) =>
      site.query(
        `insert into wp_options (option_name, option_value, autoload) values (?, ?, 'auto')
         on duplicate key update option_value = values(option_value)`,
        [name, value],
      );
    await setOption(
      'rtcl_chat_settings',
      serialize({
        enable: 'yes',
        pusher_enable: 'yes',
        pusher_app_key: 'abc123',
        pusher_app_cluster: '',
        pusher_app_secret: 'never-shown',
      }),
    );
    await setOption(
      'rtcl_general_currency_settings',
      serialize({ currency: 'EUR', currency_thousands_separator: '.', currency_decimal_separator: ',' }),
    );
    await setOption(
      'rtcl_moderation_settings',
      serialize({ new_listing_label: 'Fresh', display_options: ['new', 'featured'], display_options_detail: ['featured'] }),
    );
    await setOption('rtcl_style_settings', serialize({ new: '#ff0000', new_text: '#ffffff', feature: '#00ff00' }));
    await setOption('timezone_string', 'Asia/Kolkata');
    await setOption('date_format', 'd/m/Y');
    await setOption('time_format', 'H:i');
    await setOption('start_of_week', '0');

    let changed: Record<string, any> = seeded;
    await until(async () => {
      changed = await get();
      return changed.chat.pusher !== undefined;
    });
    assert.deepEqual(changed.chat.pusher, { app_key: 'abc123', app_cluster: null });
    assert.doesNotMatch(JSON.stringify(changed), /never-shown/);
    assert.deepEqual(changed.currency, { id: 'EUR', symbol: '&euro;', position: 'left', separator: { decimal: ',', thousand: '.' } });
    assert.deepEqual(changed.tz, { timezone_type: 3, timezone: 'Asia/Kolkata' });
    assert.equal(changed.date_format, 'd/m/Y');
    assert.deepEqual(changed.datetime_fmt, { time: 'HH:mm', date: 'DD/MM/YYYY' });
    assert.equal(changed.start_of_week, 0);
    assert.deepEqual(changed.badges.new, { label: 'Fresh', listing: true, single: false, color: { bg: '#ff0000', text: '#ffffff' } });
    assert.deepEqual(changed.badges.featured, { label: 'Featured', listing: true, single: true, color: { bg: '#00ff00', text: '' } });

    // The chat switched off on the site.
    await setOption('rtcl_chat_settings', serialize({ enable: 'no' }));
    await until(async () => (await get()).chat.enable === false);
    assert.equal('pusher' in (await get()).chat, false);
  });
});
