/**
 * The staff console (docs/console.md) through HTTP, on SQLite and PostgreSQL, one server: its
 * headers (a strict CSP, the cookie's attributes, Secure behind a TLS proxy), htmx served from the
 * installed package, the set-up link (password and TOTP enrolment; expired, reused), sign-in with
 * a TOTP code taken once, CSRF (missing, stale), the roles (a viewer sees no message bodies, and
 * their POST to a moderator's action is refused 403 and audited), the reports queue with a report
 * holding HTML shown as text, each action with its reason and audit row, users, the deliveries page
 * (a failed one retried, audited; a viewer refused), the audit log's
 * filter, a removed member's session ending, and the sign-in throttle; the overview's figures of
 * today (from the staff member's midnight), users by display name, the reports against a user, a listing's conversations, and the
 * abuse limits an owner changes (a bad value named; taken by the server; others refused, audited).
 */
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { newSetupToken, setupDigest, totpCode } from '../../src/auth/staff.js';
import { CLI_ACTOR } from '../../src/domain/audit.js';
import { addStaff, removeStaff } from '../../src/domain/staff/members.js';
import { startOfDay } from '../../src/domain/staff/reads.js';
import type { StaffRole } from '../../src/domain/staff/staff.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';

const STEP_MS = 30_000;

/** A browser's part: the session cookie kept, forms posted as a browser posts them. */
class Visitor {
  cookie = '';
  csrf = '';
  constructor(private readonly t: TestSouk) {}
  private take(res: { headers: Record<string, unknown>; body: string }) {
    const set = res.headers['set-cookie'];
    for (const line of ([] as string[]).concat((set as string | string[] | undefined) ?? [])) {
      const [pair] = line.split(';');
      if (pair!.startsWith('souk_console=')) this.cookie = pair!.endsWith('=') ? '' : pair!;
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (token) this.csrf = token[1]!;
  }
  async get(url: string, headers: Record<string, string> = {}) {
    const res = await this.t.app.inject({ method: 'GET', url, headers: { ...(this.cookie ? { cookie: this.cookie } : {}), ...headers } });
    this.take(res);
    return res;
  }
  async post(url: string, form: Record<string, string>, { csrf = true } = {}) {
    const body = new URLSearchParams({ ...(csrf ? { _csrf: this.csrf } : {}), ...form }).toString();
    const res = await this.t.app.inject({
      method: 'POST',
      url,
      payload: body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(this.cookie ? { cookie: this.cookie } : {}) },
    });
    this.take(res);
    return res;
  }
}

const text = (html: string, id: string) => new RegExp(`id="${id}">([^<]*)<`).exec(html)?.[1];

// At the file's top: the helper closes the server when the file ends, not when a hook does.
const souk = startTestSouk({ TRUST_PROXY: '127.0.0.1', RATE_LIMIT_AUTH_FAILURES: '8' });

describe('the staff console', () => {
  let t: TestSouk;
  let reportId: number;
  let messageId: number;
  const members = new Map<string, { visitor: Visitor; secret: string; email: string; password: string }>();

  async function invite(email: string, role: StaffRole, now = Date.now()) {
    const token = newSetupToken();
    const result = await addStaff(
      { staff: t.souk.store.staff, audit: t.souk.store.audit, now: () => now },
      CLI_ACTOR,
      email,
      role,
      setupDigest(token),
    );
    assert.ok(result.ok);
    return `/console/setup/${token}`;
  }

  /** Invited, set up through the link, signed in. */
  async function member(role: StaffRole) {
    const email = `${role}@example.com`;
    const visitor = new Visitor(t);
    const link = await invite(email, role);
    const page = await visitor.get(link);
    assert.equal(page.statusCode, 200);
    const secret = text(page.body, 'totp-secret')!;
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const password = `${role} password, long enough`;
    const done = await visitor.post(link, { password, password_again: password, code: totpCode(secret, Date.now()) });
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, '/console/sign-in?ready=1');
    await visitor.get('/console/sign-in');
    // The set-up took this step's code: the next step's signs in.
    const signIn = await visitor.post('/console/sign-in', { email, password, code: totpCode(secret, Date.now() + STEP_MS) });
    assert.equal(signIn.statusCode, 303, signIn.body);
    assert.equal(signIn.headers.location, '/console/reports');
    const m = { visitor, secret, email, password };
    members.set(role, m);
    return m;
  }

  before(async () => {
    t = await souk;
    // A conversation, and a report of its third message whose words are HTML.
    const conId = ((await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json() as { con_id: number }).con_id;
    for (const line of ['first', '<b>scam</b> pay here', 'third', 'fourth']) {
      const res = await t.post('/wp-json/rtcl/v1/my/chat/message', { con_id: conId, text: line }, t.auth(USERS.youssef));
      assert.equal(res.statusCode, 200, res.body);
    }
    const [reported] = (await t.souk.store.repos.messages.pageOf(conId, 0, 2, 1))!;
    messageId = reported!.id;
    const res = await t.post(
      '/wp-json/rtcl/v1/my/chat/report',
      { con_id: conId, message_id: messageId, reason: '<script>alert("x")</script> asked me to pay outside' },
      t.auth(USERS.amina),
    );
    assert.equal(res.statusCode, 200, res.body);
    reportId = (await t.souk.store.reports.list({ open: true, limit: 1 }))[0]!.id;
  });

  it('answers with a strict CSP, a SameSite=Strict HttpOnly cookie (Secure behind TLS), htmx and a stylesheet of its own', async () => {
    const v = new Visitor(t);
    const res = await v.get('/console/sign-in');
    assert.equal(res.statusCode, 200);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /style-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe/);
    assert.equal(res.headers['x-frame-options'], 'SAMEORIGIN');
    assert.equal(res.headers['cache-control'], 'no-store');
    const cookie = String(res.headers['set-cookie']);
    assert.match(cookie, /^souk_console=/);
    assert.match(cookie, /; Path=\/console/);
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; SameSite=Strict/);
    assert.doesNotMatch(cookie, /Secure/);
    assert.doesNotMatch(res.body, /<script>(?!<\/script>)|<script [^>]*>[^<]/, 'no inline script');
    assert.match(res.body, /<script src="\/console\/assets\/htmx.min.js" defer><\/script>/);
    const proxied = await new Visitor(t).get('/console/sign-in', { 'x-forwarded-proto': 'https' });
    assert.match(String(proxied.headers['set-cookie']), /; Secure/);

    const htmx = await v.get('/console/assets/htmx.min.js');
    assert.equal(htmx.statusCode, 200);
    assert.match(String(htmx.headers['content-type']), /^text\/javascript/);
    const shipped = readFileSync(createRequire(import.meta.url).resolve('htmx.org/dist/htmx.min.js'), 'utf8');
    assert.equal(htmx.body, shipped);
    assert.equal((await v.get('/console/assets/console.css')).statusCode, 200);
    for (const name of ['nope.js', 'constructor', '__proto__', '..%2Fconsole.ts'])
      assert.equal((await v.get(`/console/assets/${name}`)).statusCode, 404, name);
    // Not signed in: every page sends to the sign-in.
    const queue = await v.get('/console/reports');
    assert.deepEqual([queue.statusCode, queue.headers.location], [303, '/console/sign-in']);
  });

  it('sets a member up through the link once: the password and TOTP checked, an expired link says so', async () => {
    const v = new Visitor(t);
    const expired = await invite('late@example.com', 'viewer', Date.now() - 86_400_001);
    const gone = await v.get(expired);
    assert.equal(gone.statusCode, 410);
    assert.match(gone.body, /This set-up link has expired/);
    assert.equal((await v.get(`/console/setup/${newSetupToken()}`)).statusCode, 404);
    assert.equal((await v.get('/console/setup/not-a-token')).statusCode, 404);

    const link = await invite('new@example.com', 'moderator');
    const page = await v.get(link);
    assert.match(page.body, /<img class="qr" src="data:image\/svg\+xml;base64,/);
    const secret = text(page.body, 'totp-secret')!;
    const short = await v.post(link, { password: 'short', password_again: 'short', code: totpCode(secret, Date.now()) });
    assert.equal(short.statusCode, 400);
    assert.match(short.body, /password must be at least 12 characters/);
    // The secret shown stays while the form is being corrected.
    assert.equal(text(short.body, 'totp-secret'), secret);
    const password = 'a password long enough';
    const mismatch = await v.post(link, { password, password_again: `${password}!`, code: totpCode(secret, Date.now()) });
    assert.match(mismatch.body, /password_again must repeat the password/);
    const wrong = await v.post(link, {
      password,
      password_again: password,
      code: '000000' === totpCode(secret, Date.now()) ? '111111' : '000000',
    });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /code is not the one your authenticator app shows now/);
    const done = await v.post(link, { password, password_again: password, code: totpCode(secret, Date.now()) });
    assert.equal(done.statusCode, 303);
    assert.equal((await v.get(link)).statusCode, 404, 'used up');
    const stored = await t.souk.store.staff.findByEmail('new@example.com');
    assert.match(stored!.passwordHash!, /^\$argon2id\$/);
    assert.equal(stored!.setupDigest, null);
  });

  it('signs in with the password and a TOTP code, each code once; refuses a wrong one alike', async () => {
    const m = await member('owner');
    const overview = await m.visitor.get('/console');
    assert.equal(overview.statusCode, 200);
    assert.match(overview.body, /owner@example.com \(owner\)/);
    const other = new Visitor(t);
    await other.get('/console/sign-in');
    const code = totpCode(m.secret, Date.now() + STEP_MS);
    for (const form of [
      { email: m.email, password: 'wrong password', code: totpCode(m.secret, Date.now()) },
      { email: 'nobody@example.com', password: m.password, code: totpCode(m.secret, Date.now()) },
      // The code the member signed in with: taken.
      { email: m.email, password: m.password, code },
    ]) {
      const res = await other.post('/console/sign-in', form);
      assert.equal(res.statusCode, 401);
      assert.match(res.body, /The e-mail, password or code is wrong\./);
    }
  });

  it("counts today's messages, the users who sent them and the conversations started, from a bounded window", async () => {
    const o = members.get('owner')!.visitor;
    const overview = (await o.get('/console')).body;
    // The conversation started today: amina's first message, then youssef's four.
    assert.deepEqual(
      [text(overview, 'messages-today'), text(overview, 'active-users'), text(overview, 'conversations-today')],
      ['5', '2', '1'],
    );
    // A window smaller than the day's messages counts it full: at least that many.
    const since = Date.now() - (Date.now() % 86_400_000);
    assert.deepEqual(await t.souk.store.consoleReads.activitySince(since, 3), { messages: 3, senders: 1, conversations: 1 });
    assert.deepEqual(await t.souk.store.consoleReads.activitySince(Date.now() + 86_400_000, 10), {
      messages: 0,
      senders: 0,
      conversations: 0,
    });
  });

  it("counts today from the staff member's midnight, in the zone their browser keeps in a cookie", async () => {
    const o = members.get('owner')!.visitor;
    const inZone = async (zone: string) => {
      const page = (await o.get('/console', { cookie: `${o.cookie}; souk_console_zone=${encodeURIComponent(zone)}` })).body;
      return [text(page, 'today-zone'), text(page, 'messages-today')];
    };
    // Kiritimati (UTC+14) and Pago Pago (UTC-11) are a day and an hour apart: their days start an
    // hour or more apart. One message sent a minute before the later start is today in one zone only.
    const earlier = Math.min(startOfDay(Date.now(), 'Pacific/Kiritimati'), startOfDay(Date.now(), 'Pacific/Pago_Pago'));
    const later = Math.max(startOfDay(Date.now(), 'Pacific/Kiritimati'), startOfDay(Date.now(), 'Pacific/Pago_Pago'));
    const zoneOf = (start: number) => (startOfDay(Date.now(), 'Pacific/Kiritimati') === start ? 'Pacific/Kiritimati' : 'Pacific/Pago_Pago');
    const db = t.souk.store.db;
    const first = await db.selectFrom('messages').select(['id', 'created_at']).orderBy('id').executeTakeFirstOrThrow();
    await db
      .updateTable('messages')
      .set({ created_at: later - 60_000 })
      .where('id', '=', first.id)
      .execute();
    try {
      assert.ok(earlier < later - 60_000);
      assert.deepEqual(await inZone(zoneOf(earlier)), [zoneOf(earlier), '5']);
      assert.deepEqual(await inZone(zoneOf(later)), [zoneOf(later), '4']);
      // A zone the runtime does not know, or none: UTC.
      assert.deepEqual((await inZone('Mars/Olympus'))[0], 'UTC');
      assert.equal(text((await o.get('/console')).body, 'today-zone'), 'UTC');
    } finally {
      await db.updateTable('messages').set({ created_at: first.created_at }).where('id', '=', first.id).execute();
    }
  });

  it('refuses a POST whose CSRF token is missing or from another session: 403', async () => {
    const m = members.get('owner')!;
    await m.visitor.get('/console/reports');
    const missing = await m.visitor.post(`/console/reports/${reportId}/close`, { reason: 'x' }, { csrf: false });
    assert.equal(missing.statusCode, 403);
    assert.match(missing.body, /The form has expired/);
    // A token of the session before sign-in: stale.
    const stranger = new Visitor(t);
    await stranger.get('/console/sign-in');
    const stale = stranger.csrf;
    await m.visitor.get('/console/reports');
    m.visitor.csrf = stale;
    assert.equal((await m.visitor.post(`/console/reports/${reportId}/close`, { reason: 'x' })).statusCode, 403);
    assert.equal((await t.souk.store.reports.find(reportId))!.closedAt, null, 'nothing done');
    const signOut = await stranger.post('/console/sign-out', {}, { csrf: false });
    assert.equal(signOut.statusCode, 403);
    // Hostile forms: a token twice, a body not a form, a field twice: refused, never a 500.
    await m.visitor.get('/console/reports');
    const raw = (payload: string, type: string) =>
      t.app.inject({
        method: 'POST',
        url: `/console/reports/${reportId}/close`,
        payload,
        headers: { 'content-type': type, cookie: m.visitor.cookie },
      });
    const token = encodeURIComponent(m.visitor.csrf);
    assert.equal((await raw(`_csrf=${token}&_csrf=${token}&reason=x`, 'application/x-www-form-urlencoded')).statusCode, 403);
    assert.equal((await raw('{"_csrf": [1], "reason": "x"}', 'application/json')).statusCode, 403);
    assert.equal((await raw('<x/>', 'text/xml')).statusCode, 415);
    const twice = await raw(`_csrf=${token}&reason=a&reason=b`, 'application/x-www-form-urlencoded');
    assert.equal(twice.statusCode, 400);
    assert.match(twice.body, /reason is required/);
  });

  it('lists the open reports, and shows one in context with its HTML as text', async () => {
    const m = await member('moderator');
    const queue = await m.visitor.get('/console/reports');
    assert.equal(queue.statusCode, 200);
    assert.match(queue.body, new RegExp(`href="/console/reports/${reportId}"`));
    assert.match(queue.body, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt; asked me to pay outside/);
    assert.doesNotMatch(queue.body, /<script>alert/);
    const page = await m.visitor.get(`/console/reports/${reportId}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /&lt;b&gt;scam&lt;\/b&gt; pay here/);
    assert.doesNotMatch(page.body, /<b>scam/);
    // The conversation around it: what came before and after.
    for (const line of ['Hello', 'first', 'third', 'fourth']) assert.match(page.body, new RegExp(`<p>${line}</p>`));
    assert.match(page.body, /amina<\/a> \(1\)/);
    assert.match(page.body, /youssef<\/a> \(2\)/);
    assert.equal((await m.visitor.get('/console/reports/999999')).statusCode, 404);
    assert.equal((await m.visitor.get('/console/reports/x')).statusCode, 404);
    const closed = await m.visitor.get('/console/reports?status=closed');
    assert.match(closed.body, /No closed reports\./);
  });

  it("hides message bodies from a viewer, and refuses a viewer's action 403, audited", async () => {
    const v = await member('viewer');
    const page = await v.visitor.get(`/console/reports/${reportId}`);
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /scam|fourth/);
    assert.match(page.body, /\(message body hidden for your role\)/);
    assert.doesNotMatch(page.body, /action="\/console\/reports\/\d+\/close"/);
    for (const [path, action] of [
      [`/console/reports/${reportId}/disable-user`, 'user.disable'],
      [`/console/users/${USERS.youssef}/erase`, 'user.erase'],
    ] as const) {
      const res = await v.visitor.post(path, { reason: 'trying', login: 'youssef' });
      assert.equal(res.statusCode, 403);
      const [row] = await t.souk.store.audit.list({ limit: 1, actor: 'viewer@example.com' });
      assert.deepEqual(
        [row!.actor, row!.action, row!.details],
        [{ kind: 'staff', name: 'viewer@example.com' }, 'staff.denied', { action, role: 'viewer' }],
      );
    }
    assert.equal((await t.souk.store.repos.users.findById(USERS.youssef))!.disabled, false);
  });

  it('acts on a report with a reason, each action audited with the member as the actor', async () => {
    const m = members.get('moderator')!.visitor;
    await m.get(`/console/reports/${reportId}`);
    const noReason = await m.post(`/console/reports/${reportId}/disable-user`, { reason: '  ' });
    assert.equal(noReason.statusCode, 400);
    assert.match(noReason.body, /reason is required/);
    const long = await m.post(`/console/reports/${reportId}/close`, { reason: 'x'.repeat(1001) });
    assert.match(long.body, /reason must be at most 1000 characters/);
    for (const [verb, action] of [
      ['delete-message', 'message.delete'],
      ['disable-user', 'user.disable'],
      ['close', 'report.close'],
    ] as const) {
      const res = await m.post(`/console/reports/${reportId}/${verb}`, { reason: `because ${verb}` });
      assert.deepEqual([res.statusCode, res.headers.location], [303, `/console/reports/${reportId}?done=${action}`]);
      const [row] = await t.souk.store.audit.list({ limit: 1, actor: 'moderator@example.com' });
      assert.deepEqual([row!.actor.kind, row!.action, row!.reason], ['staff', action, `because ${verb}`]);
      await m.get(`/console/reports/${reportId}`);
    }
    assert.equal((await t.souk.store.repos.users.findById(USERS.youssef))!.disabled, true);
    assert.equal((await t.souk.store.repos.messages.findById(messageId))!.text, '');
    assert.notEqual((await t.souk.store.reports.find(reportId))!.closedAt, null);
    const audit = await m.get('/console/audit?actor=moderator%40example.com&action=user.disable');
    assert.equal(audit.statusCode, 200);
    assert.match(audit.body, /because disable-user/);
    assert.doesNotMatch(audit.body, /because close/);
    assert.equal((await m.get('/console/audit?since=yesterday')).statusCode, 400);
    assert.equal((await m.get('/console/audit?actor=a%00b')).statusCode, 400);
    assert.match((await m.get('/console/users?q=a%00b')).body, /No user is a/);
  });

  it('finds users, shows one, enables, exports as a download and erases after the login is typed', async () => {
    const m = members.get('moderator')!.visitor;
    const search = await m.get('/console/users?q=youssef');
    assert.match(search.body, /href="\/console\/users\/2">youssef<\/a>/);
    assert.match((await m.get('/console/users?q=2')).body, /href="\/console\/users\/2"/);
    assert.match((await m.get('/console/users?q=nobody')).body, /No user is nobody\./);
    const page = await m.get(`/console/users/${USERS.youssef}`);
    assert.match(page.body, /<span class="badge">disabled<\/span>/);
    assert.match(page.body, /<dd id="conversations"><a href="\/console\/conversations\?user=2">1<\/a><\/dd>/);
    assert.equal((await m.post(`/console/users/${USERS.youssef}/enable`, { reason: 'appeal' })).statusCode, 303);
    assert.equal((await t.souk.store.repos.users.findById(USERS.youssef))!.disabled, false);
    await m.get(`/console/users/${USERS.sara}`);
    const exported = await m.post(`/console/users/${USERS.sara}/export`, { reason: 'her request' });
    assert.equal(exported.statusCode, 200);
    assert.equal(exported.headers['content-disposition'], `attachment; filename="souk-user-${USERS.sara}.json"`);
    assert.equal(JSON.parse(exported.body).user.id, USERS.sara);
    await m.get(`/console/users/${USERS.sara}`);
    const mistyped = await m.post(`/console/users/${USERS.sara}/erase`, { reason: 'her request', login: 'Sara' });
    assert.equal(mistyped.statusCode, 400);
    assert.match(mistyped.body, /login must be the user&#39;s login/);
    assert.equal((await m.post(`/console/users/${USERS.sara}/erase`, { reason: 'her request', login: 'sara' })).statusCode, 303);
    const rows = await t.souk.store.audit.list({ limit: 3, actor: 'moderator@example.com' });
    assert.deepEqual(
      rows.map((r) => r.action),
      ['user.erase', 'user.export', 'user.enable'],
    );
  });

  it('finds users by display name whatever its case, and shows the reports against a user', async () => {
    const m = members.get('moderator')!.visitor;
    assert.match((await m.get(`/console/users?q=${encodeURIComponent('amina k.')}`)).body, /href="\/console\/users\/1">amina<\/a>/);
    assert.match(
      (await m.get(`/console/users?q=${encodeURIComponent('Amina K')}`)).body,
      /No user is Amina K\./,
      'a whole name, not a part',
    );
    const page = (await m.get(`/console/users/${USERS.youssef}`)).body;
    assert.match(page, /<dd id="reports-against">1 \((0|1) open\)<\/dd>/);
    assert.match(page, new RegExp(`<ul id="against"><li><a href="/console/reports/${reportId}">Report ${reportId}</a> \\(\\w+, by user 1`));
    assert.match((await m.get(`/console/users/${USERS.amina}`)).body, /<dd id="reports-against">0 \(0 open\)<\/dd>/);
  });

  it("lists a listing's conversations, linked from a conversation; a bad id is named", async () => {
    const m = members.get('viewer')!.visitor;
    const list = await m.get(`/console/conversations?listing=${LISTINGS.bike}`);
    assert.equal(list.statusCode, 200);
    const conId = Number(/href="\/console\/conversations\/(\d+)"/.exec(list.body)?.[1]);
    assert.ok(conId > 0, list.body);
    assert.match(
      (await m.get(`/console/conversations/${conId}`)).body,
      new RegExp(`href="/console/conversations\\?listing=${LISTINGS.bike}"`),
    );
    assert.match((await m.get(`/console/conversations?listing=${LISTINGS.table}`)).body, /Listing 103 has no conversations\./);
    const bad = await m.get('/console/conversations?listing=x1');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /listing must be a listing id/);
    const both = await m.get(`/console/conversations?listing=${LISTINGS.bike}&user=1`);
    assert.equal(both.statusCode, 400);
    assert.match(both.body, /user and listing: give one of them/);
  });

  it("lists a user's conversations; reading one asks a reason and is audited, refused to a viewer", async () => {
    const m = members.get('moderator')!.visitor;
    const list = await m.get(`/console/conversations?user=${USERS.amina}`);
    assert.equal(list.statusCode, 200);
    const conId = Number(/href="\/console\/conversations\/(\d+)"/.exec(list.body)?.[1]);
    assert.ok(conId > 0, list.body);
    assert.equal((await m.get('/console/conversations?user=abc')).statusCode, 400);
    const page = await m.get(`/console/conversations/${conId}`);
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /fourth/, 'no message before a reason');
    const noReason = await m.post(`/console/conversations/${conId}/read`, { reason: '' });
    assert.equal(noReason.statusCode, 400);
    assert.doesNotMatch(noReason.body, /fourth/);
    const read = await m.post(`/console/conversations/${conId}/read`, { reason: 'checking report' });
    assert.equal(read.statusCode, 200);
    assert.match(read.body, /<p>fourth<\/p>/);
    const [row] = await t.souk.store.audit.list({ limit: 1, actor: 'moderator@example.com' });
    assert.deepEqual(
      [row!.action, row!.targetKind, row!.targetId, row!.reason],
      ['conversation.read', 'conversation', conId, 'checking report'],
    );
    const viewer = members.get('viewer')!.visitor;
    await viewer.get(`/console/conversations/${conId}`);
    const refused = await viewer.post(`/console/conversations/${conId}/read`, { reason: 'curious' });
    assert.equal(refused.statusCode, 403);
    assert.doesNotMatch(refused.body, /fourth/);
    const [denied] = await t.souk.store.audit.list({ limit: 1, actor: 'viewer@example.com' });
    assert.deepEqual([denied!.action, denied!.details], ['staff.denied', { action: 'conversation.read', role: 'viewer' }]);
  });

  it('lets an owner change the bad words with a reason, audited; a moderator is refused 403, audited', async () => {
    const o = members.get('owner')!.visitor;
    const page = await o.get('/console/settings');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<input id="messages_per_minute" name="messages_per_minute" inputmode="numeric" value="" placeholder="0"/);
    const bad = await o.post('/console/settings/bad-words', { words: 'scam', action: 'shout', reason: 'spam wave' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /action must be reject or mask/);
    const saved = await o.post('/console/settings/bad-words', { words: ' scam, , scam,fraud ', action: 'mask', reason: 'spam wave' });
    assert.deepEqual([saved.statusCode, saved.headers.location], [303, '/console/settings?done=settings.change']);
    const all = await t.souk.store.settings.all();
    assert.deepEqual([all.bad_words, all.bad_words_action], ['scam,fraud', 'mask']);
    const rows = await t.souk.store.audit.list({ limit: 2, actor: 'owner@example.com' });
    assert.deepEqual(
      rows.map((r) => [r.action, r.details, r.reason]),
      [
        ['settings.change', { key: 'bad_words_action', value: 'mask' }, 'spam wave'],
        ['settings.change', { key: 'bad_words', words: 2 }, 'spam wave'],
      ],
    );
    const m = members.get('moderator')!.visitor;
    const shown = await m.get('/console/settings');
    assert.match(shown.body, /<dd id="bad-words">scam,fraud<\/dd>/);
    const refused = await m.post('/console/settings/bad-words', { words: '', action: 'reject', reason: 'no' });
    assert.equal(refused.statusCode, 403);
    const [denied] = await t.souk.store.audit.list({ limit: 1, actor: 'moderator@example.com' });
    assert.deepEqual([denied!.action, denied!.details], ['staff.denied', { action: 'settings.change', role: 'moderator' }]);
    assert.equal((await t.souk.store.settings.all()).bad_words, 'scam,fraud');
  });

  it('lets an owner change an abuse limit, taken by the server at its next settings read; a bad value named; others refused 403', async () => {
    const o = members.get('owner')!.visitor;
    await o.get('/console/settings');
    const bad = await o.post('/console/settings/limits', { messages_per_minute: 'many', chat_retention_days: '40', reason: 'spam wave' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /messages_per_minute must be a whole number from 0 to 1000000, or empty for the environment&#39;s value/);
    const tooLong = await o.post('/console/settings/limits', { chat_retention_days: '99999', reason: 'spam wave' });
    assert.match(tooLong.body, /chat_retention_days must be a whole number from 0 to 36500/);
    assert.equal((await t.souk.store.settings.all()).chat_retention_days, undefined, 'nothing stored from a refused form');
    const saved = await o.post('/console/settings/limits', { messages_per_minute: '1', reason: 'spam wave' });
    assert.deepEqual([saved.statusCode, saved.headers.location], [303, '/console/settings?done=settings.change']);
    const [row] = await t.souk.store.audit.list({ limit: 1, actor: 'owner@example.com' });
    assert.deepEqual(
      [row!.action, row!.details, row!.reason],
      ['settings.change', { key: 'messages_per_minute', value: '1' }, 'spam wave'],
    );
    assert.match((await o.get('/console/settings')).body, /in force: 1; environment \(<code>MESSAGES_PER_MINUTE<\/code>\): 0/);
    // Every server reads the settings within SETTINGS_REFRESH_MS; this one now.
    await t.souk.settings.refresh();
    const conId = (await t.souk.store.repos.conversations.listFor(USERS.youssef, 0, 1, false))[0]!.conversation.id;
    // Youssef was disabled and enabled above: a token issued within the second of that revocation
    // is refused (iat has whole seconds), so his new token comes from the next second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const send = async (line: string) =>
      (await t.post('/wp-json/rtcl/v1/my/chat/message', { con_id: conId, text: line }, t.auth(USERS.youssef))).statusCode;
    // One a minute, in fixed windows: of three sends in a row, two share a window.
    const answers = [await send('one'), await send('two'), await send('three')];
    assert.ok(answers.includes(429), String(answers));
    await o.get('/console/settings');
    const back = await o.post('/console/settings/limits', { messages_per_minute: '', reason: 'wave over' });
    assert.equal(back.statusCode, 303);
    const [cleared] = await t.souk.store.audit.list({ limit: 1, actor: 'owner@example.com' });
    assert.deepEqual(cleared!.details, { key: 'messages_per_minute', value: 'environment' });
    await t.souk.settings.refresh();
    assert.deepEqual([await send('four'), await send('five')], [200, 200]);
    for (const role of ['moderator', 'viewer'] as const) {
      const v = members.get(role)!.visitor;
      await v.get('/console/settings');
      const refused = await v.post('/console/settings/limits', { messages_per_minute: '5', reason: 'mine' });
      assert.equal(refused.statusCode, 403);
      const [denied] = await t.souk.store.audit.list({ limit: 1, actor: `${role}@example.com` });
      assert.deepEqual([denied!.action, denied!.details], ['staff.denied', { action: 'settings.change', role }]);
    }
    assert.equal((await t.souk.store.settings.all()).messages_per_minute, '');
  });

  it('lets an owner add, reset and remove staff with the link shown once; a moderator cannot add staff (403, audited)', async () => {
    const o = members.get('owner')!.visitor;
    const list = await o.get('/console/staff');
    assert.match(list.body, /<td>viewer@example.com<\/td><td>viewer<\/td><td>active<\/td>/);
    const added = await o.post('/console/staff', { email: 'Added@Example.com', role: 'viewer' });
    assert.equal(added.statusCode, 200);
    const link = /id="setup-link">https?:\/\/[^/]+(\/console\/setup\/[A-Za-z0-9_-]{43})</.exec(added.body)?.[1];
    assert.ok(link, added.body);
    assert.equal((await new Visitor(t).get(link)).statusCode, 200, 'the link works');
    assert.match((await o.post('/console/staff', { email: 'added@example.com', role: 'viewer' })).body, /a member has this e-mail already/);
    assert.equal((await o.post('/console/staff', { email: 'x@example.com', role: 'admin' })).statusCode, 400);
    assert.equal((await o.post('/console/staff', { email: 'not an e-mail', role: 'viewer' })).statusCode, 400);
    const id = (await t.souk.store.staff.findByEmail('added@example.com'))!.id;
    const reset = await o.post(`/console/staff/${id}/reset`, {});
    const second = /id="setup-link">https?:\/\/[^/]+(\/console\/setup\/[A-Za-z0-9_-]{43})</.exec(reset.body)?.[1];
    assert.ok(second && second !== link);
    assert.equal((await new Visitor(t).get(link)).statusCode, 404, 'the first link replaced');
    const self = (await t.souk.store.staff.findByEmail('owner@example.com'))!.id;
    assert.match((await o.post(`/console/staff/${self}/remove`, {})).body, /you cannot remove yourself/);
    assert.equal((await o.post(`/console/staff/${id}/remove`, {})).statusCode, 303);
    assert.equal(await t.souk.store.staff.findByEmail('added@example.com'), undefined);
    const rows = await t.souk.store.audit.list({ limit: 3, actor: 'owner@example.com' });
    assert.deepEqual(
      rows.map((r) => [r.action, r.targetId]),
      [
        ['staff.remove', id],
        ['staff.reset', id],
        ['staff.add', id],
      ],
    );
    const m = members.get('moderator')!.visitor;
    const shown = await m.get('/console/staff');
    assert.doesNotMatch(shown.body, /action="\/console\/staff"/);
    assert.equal((await m.post('/console/staff', { email: 'mine@example.com', role: 'owner' })).statusCode, 403);
    const [denied] = await t.souk.store.audit.list({ limit: 1, actor: 'moderator@example.com' });
    assert.deepEqual([denied!.action, denied!.details], ['staff.denied', { action: 'staff.add', role: 'moderator' }]);
    assert.equal(await t.souk.store.staff.findByEmail('mine@example.com'), undefined);
  });

  it('lists failed deliveries without their payload; a moderator retries one (audited), a viewer is refused 403 (audited)', async () => {
    const db = t.souk.store.db;
    const at = Date.parse('2026-11-30T18:00:00Z');
    const bare = { user_id: USERS.amina, created_at: at, attempts: 9, next_attempt_at: at, last_error: 'HTTP 503' };
    const webhook = Number(
      (
        await db
          .insertInto('webhook_outbox')
          .values({
            ...bare,
            payload: '{"text":"private words"}',
            message_id: 'msg_console',
            url: 'https://hook:pa55@hooks.example.com/souk',
            type: 'message.new',
            window_from: at,
            status: 'failed',
            delivered_at: null,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    const mail = Number(
      (
        await db
          .insertInto('mail_outbox')
          .values({ ...bare, con_id: 5, pending_key: null, first_message_id: 7, last_message_id: 9, status: 'failed', sent_at: null })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    const m = members.get('moderator')!.visitor;
    const failed = (html: string, kind: string) =>
      new RegExp(`id="failed-${kind}"><a href="/console/deliveries\\?kind=${kind}&amp;status=failed">([^<]*)<`).exec(html)?.[1];
    const overview = (await m.get('/console')).body;
    assert.deepEqual([failed(overview, 'webhook'), failed(overview, 'mail')], ['1', '1']);
    const page = await m.get('/console/deliveries?kind=webhook&status=failed');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<a href="\/console\/deliveries" aria-current="page">Deliveries<\/a>/);
    assert.match(
      page.body,
      new RegExp(`<tr id="webhook:${webhook}">\\s*<td>webhook:${webhook}</td>\\s*<td><span class="badge">failed</span></td>\\s*<td>9</td>`),
    );
    assert.match(page.body, /<td>HTTP 503<\/td>/);
    assert.match(page.body, new RegExp(`action="/console/deliveries/webhook:${webhook}/retry"`));
    assert.doesNotMatch(page.body, /private words|pa55/);
    assert.match((await m.get('/console/deliveries?kind=mail')).body, new RegExp(`<tr id="mail:${mail}">`));
    for (const query of ['kind=sms', 'kind=webhook&kind=mail', 'kind=mail&status=delivered'])
      assert.equal((await m.get(`/console/deliveries?${query}`)).statusCode, 400, query);
    assert.match((await m.get('/console/deliveries?kind=pusher&status=skipped')).body, /status must be one of pending, sent, failed/);

    const viewer = members.get('viewer')!.visitor;
    const shown = await viewer.get('/console/deliveries?kind=webhook&status=failed');
    assert.match(shown.body, new RegExp(`<tr id="webhook:${webhook}">`));
    assert.doesNotMatch(shown.body, /\/retry"/);
    assert.equal((await viewer.post(`/console/deliveries/webhook:${webhook}/retry`, {})).statusCode, 403);
    const [denied] = await t.souk.store.audit.list({ limit: 1, actor: 'viewer@example.com' });
    assert.deepEqual(
      [denied!.action, denied!.targetKind, denied!.targetId, denied!.details],
      ['staff.denied', 'webhook', webhook, { action: 'delivery.retry', role: 'viewer' }],
    );
    assert.equal((await m.post(`/console/deliveries/webhook:${webhook}/retry`, {}, { csrf: false })).statusCode, 403);
    assert.equal((await t.souk.store.webhooks!.list({ limit: 1, beforeId: webhook + 1 }))[0]!.status, 'failed', 'nothing done');

    await m.get('/console/deliveries?kind=webhook&status=failed');
    const retried = await m.post(`/console/deliveries/webhook:${webhook}/retry`, {});
    assert.deepEqual([retried.statusCode, retried.headers.location], [303, `/console/deliveries?kind=webhook&done=webhook:${webhook}`]);
    const after = await m.get(retried.headers.location as string);
    assert.match(after.body, new RegExp(`webhook:${webhook} is pending again`));
    assert.match(
      after.body,
      new RegExp(
        `<tr id="webhook:${webhook}">\\s*<td>webhook:${webhook}</td>\\s*<td><span class="badge">pending</span></td>\\s*<td>0</td>`,
      ),
    );
    const [row] = await t.souk.store.audit.list({ limit: 1, actor: 'moderator@example.com' });
    assert.deepEqual([row!.actor.kind, row!.action, row!.targetKind, row!.targetId], ['staff', 'delivery.retry', 'webhook', webhook]);
    assert.equal(failed((await m.get('/console')).body, 'webhook'), '0');
    const again = await m.post(`/console/deliveries/webhook:${webhook}/retry`, {});
    assert.equal(again.statusCode, 409);
    assert.match(again.body, new RegExp(`webhook:${webhook} is pending, not failed`));
    assert.equal((await m.post('/console/deliveries/webhook:999999/retry', {})).statusCode, 404);
    assert.equal((await m.post('/console/deliveries/nope/retry', {})).statusCode, 404);
  });

  it("ends a removed member's session; signs out", async () => {
    const o = members.get('owner')!.visitor;
    assert.equal((await o.get('/console')).statusCode, 200);
    const out = await o.post('/console/sign-out', {});
    assert.deepEqual([out.statusCode, out.headers.location], [303, '/console/sign-in']);
    assert.equal((await o.get('/console')).statusCode, 303);
    const v = members.get('viewer')!.visitor;
    assert.equal((await v.get('/console')).statusCode, 200);
    await removeStaff({ staff: t.souk.store.staff, audit: t.souk.store.audit, now: Date.now }, CLI_ACTOR, 'viewer@example.com');
    const after = await v.get('/console');
    assert.deepEqual([after.statusCode, after.headers.location], [303, '/console/sign-in?expired=1']);
  });

  it('throttles sign-in as the app does: past the failures allowed, 429 before any password is checked', async () => {
    const v = new Visitor(t);
    await v.get('/console/sign-in');
    let status = 0;
    for (let i = 0; i < 10 && status !== 429; i++)
      status = (await v.post('/console/sign-in', { email: 'x@example.com', password: 'nope', code: '123456' })).statusCode;
    assert.equal(status, 429);
    const m = members.get('moderator')!;
    const right = await v.post('/console/sign-in', {
      email: m.email,
      password: m.password,
      code: totpCode(m.secret, Date.now() + STEP_MS),
    });
    assert.equal(right.statusCode, 429);
    assert.match(right.body, /Too many failed attempts/);
  });
});

describe('the console switched off', () => {
  it('answers 404 at /console', async () => {
    const t = await startTestSouk({ CONSOLE_ENABLED: 'false' }, null);
    const res = await t.app.inject({ method: 'GET', url: '/console/sign-in' });
    assert.equal(res.statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: '/console' })).statusCode, 404);
  });
});
