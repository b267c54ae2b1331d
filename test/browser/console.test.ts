/**
 * The staff console as a person uses it, in a real browser (Debian's Chromium, headless, through
 * playwright-core) at a phone's width: the set-up link, a password and TOTP enrolment, sign-in
 * with a code, the reports queue, a report in its context (its HTML shown as text), the reported
 * user disabled with a reason, the audit log showing it, sign-out. The CSP blocks a script
 * injected into the page, and every request goes to Souk itself (no CDN). Every page, at the phone's
 * width, fits it (no sideways scroll), has its landmarks (header, nav, main), a label on every
 * field and a visible focus. With CONSOLE_SCREENSHOTS=FOLDER (`npm run console-screenshots`) it saves
 * a screenshot of each page there, 1000 px wide, for docs/console.md; without it, it writes nothing.
 * Skipped when /usr/bin/chromium is missing.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { newSetupToken, setupDigest, totpCode } from '../../src/auth/staff.js';
import { CLI_ACTOR } from '../../src/domain/audit.js';
import { addStaff } from '../../src/domain/staff/members.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { startTestSouk } from '../helpers/souk.js';
import { launchChromium, skipWithoutChromium } from '../helpers/chromium.js';

/** Where screenshots go, when asked (relative to the working folder); undefined: none are taken. */
const SHOTS = process.env.CONSOLE_SCREENSHOTS ? resolve(process.env.CONSOLE_SCREENSHOTS) : undefined;
const PHONE = { width: 390, height: 844 };
const SHOT_VIEWPORT = { width: 1000, height: 700 };

/** What a page must have to be usable by keyboard, by a screen reader and on a phone. */
async function checkUsable(page: Page, what: string): Promise<void> {
  const found = (await page.evaluate(`(() => {
    const fields = [...document.querySelectorAll('input, select, textarea')].filter((f) => f.type !== 'hidden');
    return {
      fits: document.documentElement.scrollWidth <= window.innerWidth,
      landmarks: ['header', 'nav', 'main'].filter((tag) => document.querySelector(tag) === null),
      unlabelled: fields.filter((f) => f.labels.length === 0 && !f.getAttribute('aria-label')).map((f) => f.name || f.id),
    };
  })()`)) as { fits: boolean; landmarks: string[]; unlabelled: string[] };
  assert.ok(found.fits, `${what} fits a phone's width`);
  assert.deepEqual(found.landmarks, [], `${what}: landmarks missing`);
  assert.deepEqual(found.unlabelled, [], `${what}: fields without a label`);
  // The first Tab reaches the skip link, outlined.
  await page.keyboard.press('Tab');
  const outline = (await page.evaluate(
    `(() => { const s = getComputedStyle(document.activeElement); return [document.activeElement.className, s.outlineStyle, s.outlineWidth]; })()`,
  )) as string[];
  assert.deepEqual(outline, ['skip', 'solid', '3px'], `${what}: a visible focus`);
  await page.evaluate('document.activeElement.blur()');
}

describe('the staff console in headless Chromium', () => {
  it(
    'walks set-up, TOTP sign-in, a report, a disable with a reason, the audit log and sign-out',
    { skip: skipWithoutChromium, timeout: 90_000 },
    async () => {
      const t = await startTestSouk();
      const base = await t.listen();
      const conId = ((await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json() as { con_id: number }).con_id;
      const sent = await t.post(
        '/wp-json/rtcl/v1/my/chat/message',
        { con_id: conId, text: 'pay me <i>outside</i> the site' },
        t.auth(USERS.youssef),
      );
      assert.equal(sent.statusCode, 200);
      const reported = await t.post(
        '/wp-json/rtcl/v1/my/chat/report',
        { con_id: conId, reason: '<img src=x onerror=alert(1)> scam' },
        t.auth(USERS.amina),
      );
      assert.equal(reported.statusCode, 200);
      const token = newSetupToken();
      const email = 'ana@example.com';
      assert.ok(
        (
          await addStaff(
            { staff: t.souk.store.staff, audit: t.souk.store.audit, now: Date.now },
            CLI_ACTOR,
            email,
            // An owner: every page with its forms (the settings' and the staff's too).
            'owner',
            setupDigest(token),
          )
        ).ok,
      );

      if (SHOTS) mkdirSync(SHOTS, { recursive: true });
      const browser = await launchChromium();
      try {
        // A staff member in India: the overview's today starts at their midnight, not the server's.
        const page = await browser.newPage({ viewport: PHONE, timezoneId: 'Asia/Kolkata' });
        const foreign: string[] = [];
        const problems: string[] = [];
        page.on('request', (r) => !r.url().startsWith(base) && !r.url().startsWith('data:') && foreign.push(r.url()));
        page.on('pageerror', (e) => problems.push(e.message));
        const shot = async (name: string) => {
          if (!SHOTS) return;
          await page.setViewportSize(SHOT_VIEWPORT);
          await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
          await page.setViewportSize(PHONE);
        };

        // The set-up link: the secret shown once, a password, a code from it.
        await page.goto(`${base}/console/setup/${token}`);
        const secret = (await page.locator('#totp-secret').innerText()).trim();
        assert.match(secret, /^[A-Z2-7]{32}$/);
        assert.ok(
          await page.locator('img.qr').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0),
          'the QR code shows',
        );
        await shot('setup');
        const password = 'an owner password, long';
        await page.getByLabel('Password (at least 12 characters)').fill(password);
        await page.getByLabel('Password again').fill(password);
        await page.getByLabel('Code from your authenticator app').fill(totpCode(secret, Date.now()));
        await page.getByRole('button', { name: 'Finish set-up' }).click();
        await page.waitForURL(`${base}/console/sign-in?ready=1`);

        // Sign-in with the next code (the set-up took this one).
        await shot('sign-in');
        await page.getByLabel('E-mail').fill(email);
        await page.getByLabel('Password').fill(password);
        await page.getByLabel('Code from your authenticator app').fill(totpCode(secret, Date.now() + 30_000));
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(`${base}/console/reports`);
        assert.equal(await page.evaluate('typeof window.htmx'), 'object', 'htmx loaded from Souk');
        assert.ok(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), 'fits a phone');
        await shot('reports');

        // The report in its context: the HTML in it is text.
        await page.getByRole('link', { name: /^Report \d+: conversation$/ }).click();
        await page.waitForURL(/\/console\/reports\/\d+$/);
        assert.equal((await page.locator('#report-reason').innerText()).trim(), '<img src=x onerror=alert(1)> scam');
        assert.equal(await page.locator('main img').count(), 0);
        assert.match(await page.locator('main').innerText(), /pay me <i>outside<\/i> the site/);
        await shot('report');

        await page.locator('#reason-disable-user').fill('scammer asking for payment off the site');
        await page.getByRole('button', { name: 'Disable the reported user' }).click();
        await page.waitForURL(/\?done=user\.disable$/);
        assert.equal((await t.souk.store.repos.users.findById(USERS.youssef))!.disabled, true);

        await page.getByRole('link', { name: 'Audit log' }).click();
        await page.waitForURL(`${base}/console/audit`);
        const row = page.locator('tbody tr').first();
        // Times in the reader's own zone: console.js rewrote the server's UTC, keeping it in the title.
        assert.match((await row.locator('time').getAttribute('title')) ?? '', /^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
        assert.doesNotMatch(await row.locator('time').innerText(), /UTC/);
        assert.match(
          await row.innerText(),
          /ana@example\.com \(staff\)\s+user\.disable\s+user 2\s+scammer asking for payment off the site/,
        );
        await shot('audit');

        // Every page: usable at a phone's width, and its screenshot when asked.
        const pages: Array<[name: string, path: string]> = [
          ['overview', '/console'],
          ['users', '/console/users?q=youssef'],
          ['user', `/console/users/${USERS.youssef}`],
          ['conversations', `/console/conversations?listing=${LISTINGS.bike}`],
          ['conversation', `/console/conversations/${conId}`],
          ['deliveries', '/console/deliveries'],
          ['settings', '/console/settings'],
          ['staff', '/console/staff'],
          ['reports', '/console/reports'],
          ['audit', '/console/audit'],
        ];
        for (const [name, path] of pages) {
          await page.goto(`${base}${path}`);
          await checkUsable(page, name);
          // Chromium names the zone by its older alias, which the server knows too.
          if (name === 'overview') assert.match(await page.locator('#today-zone').innerText(), /^Asia\/(Kolkata|Calcutta)$/);
          if (!['reports', 'audit'].includes(name)) await shot(name);
        }
        // An empty page says so.
        await page.goto(`${base}/console/conversations?listing=${LISTINGS.table}`);
        assert.equal((await page.locator('main .empty').innerText()).trim(), 'Listing 103 has no conversations.');

        // A script injected into the page does not run: the CSP allows none inline.
        // Run in the page (the tests' TypeScript knows no DOM): an inline script appended, and the violations reported.
        const violations = (await page.evaluate(`(async () => {
        const seen = [];
        document.addEventListener('securitypolicyviolation', (e) => seen.push(e.violatedDirective));
        const script = document.createElement('script');
        script.textContent = 'window.injected = true';
        document.body.append(script);
        await new Promise((resolve) => setTimeout(resolve, 100));
        return { seen, ran: window.injected === true };
      })()`)) as { seen: string[]; ran: boolean };
        assert.equal(violations.ran, false);
        assert.ok(
          violations.seen.some((d) => d.startsWith('script-src')),
          JSON.stringify(violations.seen),
        );

        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.waitForURL(`${base}/console/sign-in`);
        await page.goto(`${base}/console/reports`);
        await page.waitForURL(`${base}/console/sign-in`);
        assert.deepEqual(foreign, [], 'every request to Souk itself');
        assert.deepEqual(problems, []);
      } finally {
        await browser.close();
      }
    },
  );
});
