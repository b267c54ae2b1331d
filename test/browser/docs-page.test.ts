/**
 * The docs page in a real browser: Debian's Chromium, headless, driven by playwright-core. It opens /docs,
 * checks that it is Souk's page (title, icon, no framework logo, no "Explore" bar), that every documented operation
 * is listed, authorises with a real API key and token, runs "Try it out" on
 * the toggle against the live server, and saves a screenshot under docs/screenshots/. Every request the
 * page makes must go to the server itself: the page works without internet (no CDN).
 * Skipped when /usr/bin/chromium is missing (scripts/ci/install-chromium.sh installs it).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Request } from 'playwright-core';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { PATHS, startTestSouk } from '../helpers/souk.js';
import { launchChromium, skipWithoutChromium } from '../helpers/chromium.js';

const SCREENSHOT = fileURLToPath(new URL('../../docs/screenshots/docs-page.png', import.meta.url));

describe('docs page (Swagger UI) in headless Chromium', () => {
  it(
    'lists every operation and runs "Try it out" on the live server with a real key and token',
    { skip: skipWithoutChromium, timeout: 90_000 },
    async () => {
      const t = await startTestSouk();
      const base = await t.listen();
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        const requests: Request[] = [];
        const problems: string[] = [];
        page.on('request', (r) => requests.push(r));
        page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
        page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));

        await page.goto(`${base}/docs`);
        const toggle = page.locator('#operations-favourites-toggleFavourite');
        const start = page.locator('#operations-chat-startConversation');
        await toggle.waitFor();
        // Souk's own page: its title and icon, the document's title on top, no framework logo nor "Explore" bar.
        assert.equal(await page.title(), 'Souk: listing marketplace REST interface');
        assert.match(await page.locator('.info .title').first().innerText(), /^Souk listing marketplace REST interface/);
        assert.deepEqual(await page.locator('link[rel=icon]').evaluateAll((links) => links.map((l) => l.getAttribute('href'))), [
          '/docs/static/theme/souk.svg',
        ]);
        assert.equal(await page.locator('.topbar').count(), 0, 'no top bar');
        assert.equal(await page.locator('.topbar-wrapper, img[alt="Swagger UI"], a.link svg').count(), 0, "no framework's logo");
        assert.equal(await page.locator('.download-url-wrapper, input.download-url-input').count(), 0, 'no "Explore" address field');
        assert.equal(await page.getByRole('button', { name: 'Explore' }).count(), 0, 'no "Explore" button');
        assert.equal(await page.getByText('Swagger', { exact: false }).count(), 0, 'the word Swagger shown nowhere');
        assert.match(await toggle.locator('.opblock-summary').innerText(), /POST[\s\S]*\/wp-json\/rtcl\/v1\/my\/favourites/);
        assert.match(await start.locator('.opblock-summary').innerText(), /POST[\s\S]*\/wp-json\/rtcl\/v1\/my\/chat\/conversation/);
        // Every operation of the document, and nothing else (the operational endpoints are hidden).
        const doc = (await (await fetch(`${base}/wp-json/rtcl/v1/openapi.json`)).json()) as { paths: Record<string, object> };
        const operations = Object.values(doc.paths).reduce((n, methods) => n + Object.keys(methods).length, 0);
        assert.ok(operations >= 6, String(operations));
        assert.equal(await page.locator('.opblock').count(), operations);

        // Authorize: the bearer token and the API key, each in its own form of the dialog.
        await page.locator('button.authorize').first().click();
        const token = t.token(USERS.amina);
        // The user's token, not the server API's key (also a bearer scheme).
        const bearerForm = page.locator('.auth-container', { hasText: 'bearerAuth (http, Bearer)' });
        await bearerForm.locator('#auth-bearer-value').fill(token);
        await bearerForm.locator('button[type=submit]').click();
        // The X-API-KEY form, not the event stream ticket's (also an apiKey scheme, in the query).
        const keyForm = page.locator('.auth-container', { hasText: 'apiKey (apiKey)' });
        await keyForm.locator('#api_key_value').fill(t.apiKey);
        await keyForm.locator('button[type=submit]').click();
        await page.locator('.modal-ux button.close-modal').click();

        // Try it out: the request body example is {"listing_id": 101}.
        await toggle.locator('.opblock-summary').click();
        await toggle.locator('button.try-out__btn').click();
        await toggle.locator('textarea.body-param__text').fill(JSON.stringify({ listing_id: LISTINGS.bike }));
        const reply = page.waitForResponse((r) => r.url() === base + PATHS.toggle && r.request().method() === 'POST');
        await toggle.locator('button.execute').click();
        const response = await reply;
        assert.equal(response.status(), 200);
        const sent = response.request().headers();
        assert.equal(sent['x-api-key'], t.apiKey);
        assert.equal(sent.authorization, `Bearer ${token}`);
        const live = toggle.locator('.live-responses-table');
        await live.locator('.response-col_status', { hasText: '200' }).waitFor();
        assert.match(await live.locator('.response-col_description .microlight').first().innerText(), /^\[\s*101\s*\]$/);
        // The toggle really happened on the server.
        assert.deepEqual((await t.toggle(USERS.amina, { listing_id: LISTINGS.bike })).json(), []);

        mkdirSync(fileURLToPath(new URL('.', `file://${SCREENSHOT}`)), { recursive: true });
        // From the top of the page down to the live reply (the documented responses below run for pages).
        const bottom = await live.evaluate(
          (el) => el.getBoundingClientRect().bottom + (globalThis as unknown as { scrollY: number }).scrollY,
        );
        await page.screenshot({ path: SCREENSHOT, fullPage: true, clip: { x: 0, y: 0, width: 1280, height: Math.ceil(bottom + 16) } });

        const foreign = requests.map((r) => r.url()).filter((url) => !url.startsWith(`${base}/`) && !url.startsWith('data:'));
        assert.deepEqual(foreign, [], 'every request of the page goes to the server itself (no CDN)');
        assert.deepEqual(problems, []);
      } finally {
        await browser.close();
      }
    },
  );
});
