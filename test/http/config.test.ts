/**
 * GET config (docs/app-config.md): the API key only, the chat's attachment limits as the FILES_*
 * settings say (in the plugin's units), the other keys from Souk's settings. On SQLite and PostgreSQL (TEST_DATABASE_URL);
 * a WordPress site's options: test/store/mysql/config.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { startTestSouk } from '../helpers/souk.js';
import { CachedAppConfig, type MarketplaceSettings } from '../../src/domain/config.js';
import { momentFormat } from '../../src/present/config.js';

const CONFIG = '/wp-json/rtcl/v1/config';

describe('GET config', () => {
  it("answers the plugin's keys from Souk's settings, with the API key alone", async () => {
    const t = await startTestSouk({
      FILES_MAX_COUNT: '3',
      FILES_MAX_BYTES: String(7 * 1_048_576 + 1000),
      FILES_TYPES: 'image/png,image/jpeg,application/pdf,text/csv',
      CURRENCY_CODE: 'EUR',
      CURRENCY_SYMBOL: '&euro;',
      CURRENCY_POSITION: 'right_space',
      PRICE_THOUSANDS_SEPARATOR: '.',
      PRICE_DECIMAL_SEPARATOR: ',',
      SITE_TIMEZONE: 'Europe/Paris',
    });
    const base = await t.listen();

    const res = await fetch(base + CONFIG, { headers: { 'x-api-key': t.apiKey } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await res.json()) as Record<string, any>;
    assert.deepEqual(body.chat, {
      enable: true,
      attachment: {
        max_limit: 3,
        max_size_mb: 7,
        image_types: ['png', 'jpeg'],
        file_types: ['pdf', 'text/csv'],
      },
      refresh_interval: 20000,
    });
    assert.deepEqual(body.currency, { id: 'EUR', symbol: '&euro;', position: 'right_space', separator: { decimal: ',', thousand: '.' } });
    assert.deepEqual(body.tz, { timezone_type: 3, timezone: 'Europe/Paris' });
    assert.deepEqual(body.timezone, body.tz);
    assert.equal(body.date_format, 'F j, Y');
    assert.equal(body.time_format, 'g:i a');
    assert.deepEqual(body.datetime_fmt, { time: 'h:mm a', date: 'MMMM D, YYYY' });
    assert.equal(body.start_of_week, 1);
    assert.deepEqual(Object.keys(body.badges), ['new', 'popular', 'featured', 'top', 'bump_up']);
    assert.deepEqual(body.badges.bump_up, { label: 'Bump Up', listing: false, single: false, color: { bg: '', text: '' } });
    assert.equal('pusher' in body.chat, false);

    // A token is not needed, and one that does not verify is not read.
    const withToken = await fetch(base + CONFIG, { headers: { 'x-api-key': t.apiKey, authorization: 'Bearer not.a.token' } });
    assert.equal(withToken.status, 200);
    assert.deepEqual(await withToken.json(), body);

    // The API key is: missing or wrong, refused in the contract's shape.
    const missing = await fetch(base + CONFIG);
    assert.equal(missing.status, 401);
    assert.equal(((await missing.json()) as { error: string }).error, 'MISSING_X_API_KEY_HEADER');
    const wrong = await fetch(base + CONFIG, { headers: { 'x-api-key': 'wrong' } });
    assert.equal(wrong.status, 401);
    assert.equal(((await wrong.json()) as { error: string }).error, 'INVALID_API_KEY');

    // The REST switch off: 403 DENIED_REST_API, as on every route.
    await t.souk.store.settings.set('rest_api', 'false');
    await t.souk.settings.refresh();
    const denied = await fetch(base + CONFIG, { headers: { 'x-api-key': t.apiKey } });
    assert.equal(denied.status, 403);
    assert.equal(((await denied.json()) as { code: string }).code, 'DENIED_REST_API');
  });

  it("with the defaults, publishes the plugin's limits", async () => {
    const t = await startTestSouk({}, null);
    const res = await t.app.inject({ method: 'GET', url: CONFIG, headers: { 'x-api-key': t.apiKey } });
    assert.equal(res.statusCode, 200, res.body);
    const { chat, currency, tz } = res.json();
    assert.deepEqual(chat.attachment.max_limit, 4);
    assert.deepEqual(chat.attachment.max_size_mb, 5);
    assert.deepEqual(chat.attachment.image_types, ['jpeg', 'png', 'webp']);
    assert.deepEqual(currency, { id: 'USD', symbol: '&#36;', position: 'left', separator: { decimal: '.', thousand: ',' } });
    assert.deepEqual(tz, { timezone_type: 3, timezone: 'UTC' });
  });
});

describe('the cached configuration', () => {
  const own = { chatEnabled: true } as MarketplaceSettings;
  const attachments = { maxCount: 4, maxBytes: 5 * 1_048_576, types: [] };

  it('reads the settings once per period, shares a read, and shows a change after the period', async () => {
    let now = 0;
    let reads = 0;
    let enabled = true;
    const site = {
      siteConfig: async () => {
        reads++;
        return { ...own, chatEnabled: enabled };
      },
    };
    const cached = new CachedAppConfig({ site, own, attachments }, 1000, () => now);
    const [a, b] = await Promise.all([cached.get(), cached.get()]);
    assert.equal(reads, 1);
    assert.equal(a, b);
    enabled = false;
    now = 999;
    assert.equal((await cached.get()).chatEnabled, true);
    assert.equal(reads, 1);
    now = 1000;
    assert.equal((await cached.get()).chatEnabled, false);
    assert.equal(reads, 2);
  });

  it('keeps no failed read', async () => {
    let fail = true;
    const site = {
      siteConfig: async () => {
        if (fail) throw new Error('database down');
        return own;
      },
    };
    const cached = new CachedAppConfig({ site, own, attachments }, 1000, () => 0);
    await assert.rejects(cached.get(), /database down/);
    fail = false;
    assert.equal((await cached.get()).chatEnabled, true);
  });
});

describe("PHP date formats as Moment's (the plugin's conversion)", () => {
  it('converts letters, keeps the rest, brackets escaped letters', () => {
    assert.equal(momentFormat('F j, Y'), 'MMMM D, YYYY');
    assert.equal(momentFormat('g:i a'), 'h:mm a');
    assert.equal(momentFormat('d/m/Y H:i'), 'DD/MM/YYYY HH:mm');
    assert.equal(momentFormat('j \\d\\e F'), 'D [d][e] MMMM');
    assert.equal(momentFormat('l, \\t\\h\\e jS'), 'dddd, [t][h][e] Do');
  });
});

describe('CURRENCY_CODE', () => {
  it('is an ISO 4217 code', () => {
    assert.equal(loadConfig({ CURRENCY_CODE: 'EUR' }).currencyCode, 'EUR');
    assert.throws(() => loadConfig({ CURRENCY_CODE: 'euro' }), /CURRENCY_CODE must be three capital letters/);
  });
});
