/**
 * The staff console on a WordPress site's tables (MariaDB): the site's administrator signs in with
 * the site's password and enrols Souk's TOTP the first time, which every later sign-in asks; a
 * user without `manage_rtcl_options` (by a role or of their own) is refused; the pages read the site's users
 * (by display name too), today's activity and a listing's conversations from the plugin's tables, and
 * the limits an owner sets are kept in Souk's settings table.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword } from '../../../src/auth/passwords.js';
import { totpCode } from '../../../src/auth/staff.js';
import { SITE_PASSWORD } from '../../../src/domain/staff/staff.js';
import { startTestSouk, type TestSouk } from '../../helpers/souk.js';
import { mysqlReachable, SITE_LISTINGS, SITE_PASSWORDS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';

const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';
const STEP_MS = 30_000;

/** A browser's part: the session cookie kept, forms posted with the page's CSRF token. */
class Visitor {
  cookie = '';
  csrf = '';
  constructor(private readonly t: TestSouk) {}
  private take(res: { headers: Record<string, unknown>; body: string }) {
    for (const line of ([] as string[]).concat((res.headers['set-cookie'] as string | string[] | undefined) ?? [])) {
      const [pair] = line.split(';');
      if (pair!.startsWith('souk_console=')) this.cookie = pair!;
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (token) this.csrf = token[1]!;
  }
  async get(url: string) {
    const res = await this.t.app.inject({ method: 'GET', url, headers: this.cookie ? { cookie: this.cookie } : {} });
    this.take(res);
    return res;
  }
  async post(url: string, form: Record<string, string>) {
    const res = await this.t.app.inject({
      method: 'POST',
      url,
      payload: new URLSearchParams({ _csrf: this.csrf, ...form }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(this.cookie ? { cookie: this.cookie } : {}) },
    });
    this.take(res);
    return res;
  }
}

describe("the console on a WordPress site's tables", { skip }, () => {
  it("lets the site's administrator in with the site's password and Souk's TOTP, enrolled the first time", async () => {
    const site = await wordpressDatabase();
    const password = 'admin-pass-123';
    await site.query('update wp_users set user_pass = ? where ID = 1', [await hashPassword(password)]);
    const [admin] = await site.query<{ user_email: string }>('select user_email from wp_users where ID = 1');
    const email = admin!.user_email.toLowerCase();
    const t = await startTestSouk({ DATABASE_URL: site.url }, null);
    const v = new Visitor(t);
    assert.match((await v.get('/console/sign-in')).body, /E-mail \(or your WordPress login\)/);
    // Not an administrator: refused as a wrong password is.
    const bob = await v.post('/console/sign-in', { email: 'bob', password: SITE_PASSWORDS.bob, code: '123456' });
    assert.equal(bob.statusCode, 401);
    assert.equal((await v.post('/console/sign-in', { email: 'admin', password: 'wrong', code: '' })).statusCode, 401);

    const first = await v.post('/console/sign-in', { email: 'admin', password, code: '' });
    assert.deepEqual([first.statusCode, first.headers.location], [303, '/console/enrol']);
    const enrol = await v.get('/console/enrol');
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(enrol.body)?.[1];
    assert.ok(secret, enrol.body);
    assert.equal(
      (await v.post('/console/enrol', { code: '000000' === totpCode(secret, Date.now()) ? '111111' : '000000' })).statusCode,
      400,
    );
    const done = await v.post('/console/enrol', { code: totpCode(secret, Date.now()) });
    assert.deepEqual([done.statusCode, done.headers.location], [303, '/console/reports']);
    const member = await t.souk.store.staff.findByEmail(email);
    assert.deepEqual([member!.role, member!.passwordHash, member!.totpSecret], ['owner', SITE_PASSWORD, secret]);
    const [row] = await t.souk.store.audit.list({ limit: 1 });
    assert.deepEqual(
      [row!.actor, row!.action, row!.details],
      [{ kind: 'staff', name: email }, 'staff.add', { role: 'owner', site_admin: true }],
    );

    // The pages read the site's users.
    const user = await v.get(`/console/users/${SITE_USERS.alice}`);
    assert.equal(user.statusCode, 200);
    assert.match(user.body, /<h1>alice /);
    assert.match((await v.get('/console/users?q=carol')).body, /href="\/console\/users\/4">carol<\/a>/);
    // By display name, whatever its case (the site's collation); the reports against a user on their page.
    const [carol] = await site.query<{ display_name: string }>('select display_name from wp_users where ID = ?', [SITE_USERS.carol]);
    const byName = await v.get(`/console/users?q=${encodeURIComponent(carol!.display_name.toUpperCase())}`);
    assert.match(byName.body, /href="\/console\/users\/4">carol<\/a>/);
    // Today's activity from the plugin's tables (the seeded chat is older): a conversation started now, and a reply.
    const started = await t.start(SITE_USERS.alice, { listing_id: SITE_LISTINGS.laptop, text: 'Is it still for sale?' });
    assert.equal(started.statusCode, 200, started.body);
    const conId = (started.json() as { con_id: number }).con_id;
    const reply = await t.post('/wp-json/rtcl/v1/my/chat/message', { con_id: conId, text: 'Yes' }, t.auth(SITE_USERS.carol));
    assert.equal(reply.statusCode, 200, reply.body);
    const overview = (await v.get('/console')).body;
    const figure = (id: string) => new RegExp(`id="${id}">([^<]*)<`).exec(overview)?.[1];
    assert.deepEqual([figure('messages-today'), figure('active-users'), figure('conversations-today')], ['2', '2', '1']);
    // A listing's conversations, from the plugin's table.
    assert.match(
      (await v.get(`/console/conversations?listing=${SITE_LISTINGS.laptop}`)).body,
      new RegExp(`href="/console/conversations/${conId}"`),
    );
    const report = await t.post(
      '/wp-json/rtcl/v1/my/chat/report',
      { con_id: conId, reason: 'asks to pay outside' },
      t.auth(SITE_USERS.alice),
    );
    assert.equal(report.statusCode, 200, report.body);
    assert.match((await v.get(`/console/users/${SITE_USERS.carol}`)).body, /<dd id="reports-against">1 \(1 open\)<\/dd>/);
    // The limits and the retention stored in Souk's own settings table.
    await v.get('/console/settings');
    const limits = await v.post('/console/settings/limits', { reports_per_hour: '3', chat_retention_days: '400', reason: 'site policy' });
    assert.equal(limits.statusCode, 303, limits.body);
    const stored = await t.souk.store.settings.all();
    assert.deepEqual([stored.reports_per_hour, stored.chat_retention_days], ['3', '400']);
    // The outboxes the MySQL store keeps: counted on the overview, listed on the deliveries page.
    assert.match((await v.get('/console')).body, /id="failed-mail"><a [^>]*>0</);
    assert.match((await v.get('/console/deliveries?kind=mail&status=failed')).body, /No failed mail deliveries\./);

    // Later sign-ins ask the code, by login or e-mail; the site's password, never a Souk one.
    assert.equal((await v.post('/console/sign-out', {})).statusCode, 303);
    await v.get('/console/sign-in');
    assert.equal((await v.post('/console/sign-in', { email: 'admin', password, code: '' })).statusCode, 401);
    const again = await v.post('/console/sign-in', { email, password, code: totpCode(secret, Date.now() + STEP_MS) });
    assert.deepEqual([again.statusCode, again.headers.location], [303, '/console/reports']);
    assert.equal((await v.get('/console/reports')).statusCode, 200);

    // The capability granted to a user of their own (not by a role) lets them in too, at their next sign-in.
    await site.query("update wp_usermeta set meta_value = ? where user_id = ? and meta_key = 'wp_capabilities'", [
      'a:2:{s:10:"subscriber";b:1;s:19:"manage_rtcl_options";b:1;}',
      SITE_USERS.bob,
    ]);
    const other = new Visitor(t);
    await other.get('/console/sign-in');
    const granted = await other.post('/console/sign-in', { email: 'bob', password: SITE_PASSWORDS.bob, code: '' });
    assert.deepEqual([granted.statusCode, granted.headers.location], [303, '/console/enrol']);
  });
});
