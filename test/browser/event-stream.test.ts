/**
 * The event stream in a real browser: headless Chromium on the docs page's origin asks a ticket,
 * opens `new EventSource(.../my/events?ticket=...)`, and receives the events of a conversation
 * started meanwhile, live; a spent ticket cannot open a second stream. Skipped without /usr/bin/chromium.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { startTestSouk } from '../helpers/souk.js';
import { launchChromium, skipWithoutChromium } from '../helpers/chromium.js';

describe('the event stream in headless Chromium', () => {
  it("EventSource with a ticket receives the owner's events live", { skip: skipWithoutChromium, timeout: 90_000 }, async () => {
    const t = await startTestSouk();
    const base = await t.listen();
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${base}/docs`);
      const api = `${base}/wp-json/rtcl/v1`;
      // In the page: a ticket (the headers are the app's), then a stream that collects what comes.
      await page.evaluate(
        async ({ api, headers }) => {
          const w = globalThis as any;
          const res = await fetch(`${api}/my/events/ticket`, { method: 'POST', headers });
          const { ticket } = (await res.json()) as { ticket: string };
          w.received = [];
          w.ticket = ticket;
          const source = new w.EventSource(`${api}/my/events?ticket=${ticket}`);
          for (const name of ['conversation.new', 'message.new', 'conversation.unread'])
            source.addEventListener(name, (e: any) => w.received.push({ name, id: e.lastEventId, data: JSON.parse(e.data) }));
          await new Promise((resolve, reject) => {
            source.onopen = resolve;
            source.onerror = reject;
          });
          w.source = source;
        },
        { api, headers: t.auth(USERS.youssef) },
      );
      const started = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Seen live?' })).json();
      await page.waitForFunction(() => (globalThis as any).received.length >= 3, undefined, { timeout: 10_000 });
      const received = await page.evaluate(() => (globalThis as any).received);
      assert.deepEqual(
        received.map((e: any) => [e.name, e.id]),
        [
          ['conversation.new', '1'],
          ['message.new', '2'],
          ['conversation.unread', '3'],
        ],
      );
      assert.equal(received[1].data.message.message, 'Seen live?');
      assert.equal(received[0].data.conversation.con_id, started.con_id);
      // The ticket was spent: the same URL no longer opens a stream.
      const status = await page.evaluate(
        async (url) => (await fetch(url)).status,
        `${api}/my/events?ticket=${await page.evaluate(() => (globalThis as any).ticket)}`,
      );
      assert.equal(status, 401);
      await page.evaluate(() => (globalThis as any).source.close());
    } finally {
      await browser.close();
    }
  });
});
