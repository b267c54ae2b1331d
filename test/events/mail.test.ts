/**
 * E-mail when a message waits (docs/mail.md), through a real SMTP server the test starts
 * (smtp-server): a recipient who is not online gets one mail with the plugin's subject for the
 * messages of the delay; none after they read, none while they hold a stream; the interval
 * between two mails of a conversation; the one-click unsubscribe link, which cannot be turned to
 * another user; my/notifications; an SMTP server that refuses, then accepts; a SIGKILL between the
 * message and its mail; two instances on one PostgreSQL database mail once.
 * On SQLite, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { SseClient } from '../helpers/sse.js';
import { until } from '../helpers/until.js';
import { runCli } from '../helpers/cli.js';
import { startServerProcess } from '../helpers/processes.js';
import { TEST_POSTGRES_URL } from '../helpers/database.js';
import { SMTP_PASSWORD, smtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.js';

const API = '/wp-json/rtcl/v1';
const MESSAGE = `${API}/my/chat/message`;
const NOTIFICATIONS = `${API}/my/notifications`;
const FROM = 'Souk Test <noreply@souk.example>';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function mailSouk(smtp: SmtpReceiver, env: Record<string, string> = {}) {
  return startTestSouk({
    SMTP_URL: smtp.url,
    MAIL_FROM: FROM,
    MAIL_DELAY_S: '2',
    ONLINE_WINDOW_S: '1',
    MAIL_MIN_INTERVAL_S: '3600',
    MAIL_RETRY_BASE_MS: '100',
    ...env,
  });
}

const outbox = (t: TestSouk) => t.souk.store.mailOutbox!.list({ limit: 100 });
const settled = (t: TestSouk) => async () => (await outbox(t)).every((d) => d.status !== 'pending');
const ofConversation = async (t: TestSouk, conId: number) => (await outbox(t)).filter((d) => d.conId === conId);
const get = (t: TestSouk, url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const put = (t: TestSouk, url: string, body: unknown, headers: Record<string, string>) =>
  t.app.inject({ method: 'PUT', url, payload: JSON.stringify(body), headers: { ...headers, 'content-type': 'application/json' } });

describe('mail when a message waits', () => {
  it('mails an offline recipient once for the messages of the delay, not after a read, not while streaming, and keeps the interval', async () => {
    const smtp = await smtpReceiver();
    const t = await mailSouk(smtp);
    const base = await t.listen();

    // Two messages within the delay, to Youssef who is not online: one mail.
    const started = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Is it <b>still</b> available?' })).json();
    const second = await t.post(MESSAGE, { con_id: started.con_id, text: 'And the price & the size?' }, t.auth(USERS.amina));
    assert.equal(second.statusCode, 200);
    await until(() => smtp.mails.length >= 1, 15_000);
    const [mail] = smtp.mails;
    assert.equal(mail!.subject, '[Souk Test] New Messages Waiting (Road bike)');
    assert.deepEqual(mail!.to, ['youssef@example.com']);
    assert.equal(mail!.from, 'noreply@souk.example');
    assert.match(mail!.headers.get('from')!, /Souk Test/);
    assert.match(mail!.text, /Amina K\. sent you 2 new messages about "Road bike"/);
    assert.match(mail!.text, /> Is it <b>still<\/b> available\?/);
    assert.match(mail!.text, /> And the price & the size\?/);
    assert.match(mail!.html, /Is it &lt;b&gt;still&lt;\/b&gt; available\?/);
    assert.match(mail!.html, /And the price &amp; the size\?/);
    assert.doesNotMatch(mail!.html, /<b>still/);
    assert.match(mail!.text, new RegExp(`my-account/chat/\\?con_id=${started.con_id}`));
    assert.equal(mail!.headers.get('list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
    const unsubscribe = /^<(https:\/\/souk\.example\/wp-json\/rtcl\/v1\/mail\/unsubscribe\?user=2&sig=[A-Za-z0-9_-]{43})>$/.exec(
      mail!.headers.get('list-unsubscribe')!,
    )?.[1];
    assert.ok(unsubscribe, mail!.headers.get('list-unsubscribe'));
    assert.doesNotMatch(mail!.raw, new RegExp(SMTP_PASSWORD));
    // The row is marked once the SMTP server took the mail.
    await until(async () => (await ofConversation(t, started.con_id))[0]?.status === 'sent');
    const [row] = await ofConversation(t, started.con_id);

    // Another message in that conversation waits for MAIL_MIN_INTERVAL_S after the first mail.
    await t.post(MESSAGE, { con_id: started.con_id, text: 'Hello?' }, t.auth(USERS.amina));
    await sleep(3000);
    const waiting = (await ofConversation(t, started.con_id)).find((d) => d.status === 'pending');
    assert.ok(waiting, 'a pending mail');
    assert.ok(waiting.nextAttemptAt >= row!.sentAt! + 3_600_000 - 1000, 'postponed to the interval');
    assert.equal(smtp.mails.length, 1);

    // Sara writes to Youssef; he reads it within the delay: no mail.
    const saraStart = await t.start(USERS.sara, { listing_id: LISTINGS.bike, text: 'I want it' });
    assert.equal(saraStart.statusCode, 200, saraStart.body);
    const sara = saraStart.json();
    const [message] = await t.souk.store.repos.messages.pageOf(sara.con_id, 0, 0, 1);
    const read = await put(t, MESSAGE, { con_id: sara.con_id, message_id: message!.id }, t.auth(USERS.youssef));
    assert.equal(read.statusCode, 200);
    await until(async () => (await ofConversation(t, sara.con_id)).every((d) => d.status !== 'pending'), 15_000);
    assert.deepEqual(
      (await ofConversation(t, sara.con_id)).map((d) => [d.status, d.lastError]),
      [['skipped', 'read']],
    );

    // Amina holds a stream here: Youssef's message to her queues no mail at all.
    const stream = await SseClient.open(`${base}${API}/my/events`, t.auth(USERS.amina));
    assert.equal(stream.status, 200);
    await until(() => t.souk.streams!.isStreaming(USERS.amina));
    const toAmina = (await t.start(USERS.youssef, { listing_id: LISTINGS.aminasOwn, text: 'Is the chair sold?' })).json();
    assert.equal(toAmina.sender_id, USERS.youssef);
    assert.deepEqual(await ofConversation(t, toAmina.con_id), []);
    stream.close();

    // Sara is online on another instance only (its presence row): the mail is queued, then skipped.
    await t.souk.store.presence!.seen(USERS.sara, Date.now() + 300_000);
    const toSara = await t.post(MESSAGE, { con_id: sara.con_id, text: 'Yes, it is yours' }, t.auth(USERS.youssef));
    assert.equal(toSara.statusCode, 200, toSara.body);
    await until(async () => (await ofConversation(t, sara.con_id)).filter((d) => d.status === 'skipped').length === 2, 15_000);
    assert.deepEqual(
      (await ofConversation(t, sara.con_id)).map((d) => [d.userId, d.status, d.lastError]).sort(),
      [
        [USERS.sara, 'skipped', 'recipient online'],
        [USERS.youssef, 'skipped', 'read'],
      ].sort(),
    );
    assert.equal(smtp.mails.length, 1);

    // The one-click link: GET only shows a button; POST unsubscribes; another user's id with it fails.
    const path = unsubscribe!.replace('https://souk.example', '');
    const page = await get(t, path);
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /text\/html/);
    assert.match(page.body, /<form method="post"/);
    assert.deepEqual((await get(t, NOTIFICATIONS, t.auth(USERS.youssef))).json(), { email: true, show_presence: true });
    const forged = await t.app.inject({
      method: 'POST',
      url: path.replace('user=2', 'user=1'),
      payload: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(forged.statusCode, 403);
    assert.equal(forged.json().error, 'INVALID_UNSUBSCRIBE_LINK');
    const broken = await t.app.inject({ method: 'POST', url: `${API}/mail/unsubscribe?user=2&sig=nope` });
    assert.equal(broken.statusCode, 403);
    // Whatever the link says, a refusal, never a failure.
    for (const query of ['', '?user=99999999999999999999&sig=x', '?user[]=2&sig[]=x', `?user=2&sig=${'A'.repeat(5000)}`, '?user=-1&sig=']) {
      const reply = await t.app.inject({ method: 'POST', url: `${API}/mail/unsubscribe${query}` });
      assert.equal(reply.statusCode, 403, query);
    }
    assert.deepEqual((await get(t, NOTIFICATIONS, t.auth(USERS.amina))).json(), { email: true, show_presence: true });
    const once = await t.app.inject({
      method: 'POST',
      url: path,
      payload: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(once.statusCode, 200);
    assert.deepEqual((await get(t, NOTIFICATIONS, t.auth(USERS.youssef))).json(), { email: false, show_presence: true });

    // Unsubscribed: a new conversation's message to him is not mailed.
    const table = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'one more thing' })).json();
    assert.equal(table.con_id, started.con_id, 'the open conversation');
    // Once he is no longer online here (ONLINE_WINDOW_S, 1 s, after his last request): queued, then skipped.
    await sleep(1100);
    await t.post(MESSAGE, { con_id: sara.con_id, text: 'still there?' }, t.auth(USERS.sara));
    await until(async () => (await ofConversation(t, sara.con_id)).every((d) => d.status !== 'pending'), 15_000);
    assert.deepEqual(
      (await ofConversation(t, sara.con_id)).map((d) => [d.status, d.lastError]),
      [
        ['skipped', 'e-mail notifications off'],
        ['skipped', 'recipient online'],
        ['skipped', 'read'],
      ],
    );

    // my/notifications turns it on again; a bad value is refused.
    assert.deepEqual((await put(t, NOTIFICATIONS, { email: true }, t.auth(USERS.youssef))).json(), { email: true, show_presence: true });
    const bad = await put(t, NOTIFICATIONS, { email: 'maybe' }, t.auth(USERS.youssef));
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error_message, 'email is required and must be true or false.');
    assert.equal((await get(t, NOTIFICATIONS)).statusCode, 401);
    assert.deepEqual((await get(t, NOTIFICATIONS, t.auth(USERS.youssef))).json(), { email: true, show_presence: true });
  });

  it('retries while the SMTP server refuses and mails once when it accepts; souk mail list and retry; the metrics count', async () => {
    const smtp = await smtpReceiver();
    smtp.state.refuse = true;
    const t = await mailSouk(smtp, { MAIL_DELAY_S: '0', METRICS_TOKEN: 'metrics-token-0123456789' });
    await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'are you there?' });
    await until(async () => (await outbox(t))[0]?.attempts === 2, 15_000);
    const [failing] = await outbox(t);
    assert.equal(failing!.status, 'pending');
    assert.match(failing!.lastError ?? '', /451/);
    assert.doesNotMatch(failing!.lastError ?? '', new RegExp(SMTP_PASSWORD));
    smtp.state.refuse = false;
    await until(settled(t), 15_000);
    await sleep(300);
    assert.equal(smtp.mails.length, 1);
    assert.equal((await outbox(t))[0]!.status, 'sent');
    const metrics = await t.app.inject({ url: '/metrics', headers: { authorization: 'Bearer metrics-token-0123456789' } });
    assert.match(metrics.body, /^souk_mail_sent_total 1$/m);
    assert.match(metrics.body, /^souk_mail_failed_attempts_total [2-9]\d*$/m);

    // Past MAIL_RETRY_FOR_S a mail is kept as failed; souk mail list shows it and souk mail retry sends it.
    smtp.state.refuse = true;
    const r = await mailSouk(smtp, { MAIL_DELAY_S: '0', MAIL_RETRY_FOR_S: '1' });
    await r.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'one more try' });
    await until(async () => (await outbox(r))[0]?.status === 'failed', 15_000);
    const env = { DATABASE_URL: r.database.url };
    const listed = await runCli(['mail', 'list', '--status', 'failed'], env);
    assert.equal(listed.code, 0, listed.stderr);
    const [header, line] = listed.stdout.trim().split('\n');
    assert.equal(header, 'id\tstatus\tattempts\tcreated\tsent\tuser\tconversation\tmessages\tnote');
    const [id, status] = line!.split('\t');
    assert.equal(status, 'failed');
    assert.match(line!, /\t2\t1\t1-1\t.*451/);
    assert.match(listed.stderr, /SMTP_URL is unset/);
    smtp.state.refuse = false;
    const retried = await runCli(['mail', 'retry', id!], env);
    assert.equal(retried.stdout, '1 failed mail will be sent again\n');
    await until(() => smtp.mails.length === 2, 15_000);
    await until(async () => (await outbox(r))[0]?.status === 'sent');
  });

  it('mails after a SIGKILL that came between the message and its mail', async () => {
    const smtp = await smtpReceiver();
    // The in-process Souk makes the database and the fixture, and mails nothing; processes serve it.
    const t = await startTestSouk();
    const env = { DATABASE_URL: t.database.url, SITE_URL: t.config.siteUrl, SMTP_URL: smtp.url, MAIL_FROM: FROM, MAIL_DELAY_S: '2' };
    const first = await startServerProcess(env);
    const reply = await fetch(`${first.base}${API}/my/chat/conversation`, {
      method: 'POST',
      headers: { ...t.auth(USERS.amina), 'content-type': 'application/json' },
      body: JSON.stringify({ listing_id: LISTINGS.bike, text: 'before the crash' }),
    });
    assert.equal(reply.status, 200);
    await first.stop('SIGKILL');
    assert.equal(smtp.mails.length, 0);
    // Killed within the delay: the row waits in the outbox, and the next instance sends it once it is due.
    assert.equal((await outbox(t))[0]!.status, 'pending');
    await startServerProcess(env);
    await until(() => smtp.mails.length >= 1, 15_000);
    await sleep(1500);
    assert.equal(smtp.mails.length, 1);
    assert.match(smtp.mails[0]!.text, /before the crash/);
  });

  it("takes the delay an owner stored (mail_delay_s) over MAIL_DELAY_S, without a restart, and the environment's again once cleared", async () => {
    const smtp = await smtpReceiver();
    const t = await mailSouk(smtp, { MAIL_DELAY_S: '3600', MAIL_MIN_INTERVAL_S: '0' });
    const delayOf = async (conId: number) => {
      const [row] = await ofConversation(t, conId);
      return row!.nextAttemptAt - row!.createdAt;
    };
    const first = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'the hour of the environment' })).json();
    assert.equal(await delayOf(first.con_id), 3_600_000);

    await t.souk.store.settings.set('mail_delay_s', '0');
    await t.souk.settings.refresh(); // as every server does within SETTINGS_REFRESH_MS
    await t.start(USERS.amina, { listing_id: LISTINGS.table, text: 'at once now' });
    await until(() => smtp.mails.some((m) => m.text.includes('at once now')), 15_000);
    assert.ok(!smtp.mails.some((m) => m.text.includes('the hour of the environment')), 'the first still waits for its hour');

    await t.souk.store.settings.set('mail_delay_s', '');
    await t.souk.settings.refresh();
    const third = (await t.start(USERS.sara, { listing_id: LISTINGS.bike, text: 'the hour again' })).json();
    assert.equal(await delayOf(third.con_id), 3_600_000);
  });

  it('queues no mail to a recipient who made a request here within ONLINE_WINDOW_S, and does once it passed', async () => {
    const t = await mailSouk(await smtpReceiver(), { MAIL_DELAY_S: '60' });
    // Any authenticated request makes its caller online here, at the auth step.
    assert.equal((await get(t, NOTIFICATIONS, t.auth(USERS.youssef))).statusCode, 200);
    const started = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'are you there?' })).json();
    assert.deepEqual(await ofConversation(t, started.con_id), []);
    await sleep(1100);
    await t.post(MESSAGE, { con_id: started.con_id, text: 'still there?' }, t.auth(USERS.amina));
    assert.deepEqual(
      (await ofConversation(t, started.con_id)).map((d) => [d.userId, d.status]),
      [[USERS.youssef, 'pending']],
    );
  });

  it(
    'two instances on one PostgreSQL database send each mail once',
    { skip: TEST_POSTGRES_URL ? false : 'needs TEST_DATABASE_URL=postgres://...' },
    async () => {
      const smtp = await smtpReceiver();
      const a = await mailSouk(smtp, { MAIL_DELAY_S: '2' });
      // The second instance on the first one's database (its fixture already imported): both send.
      const b = await startTestSouk(
        { DATABASE_URL: a.database.url, SMTP_URL: smtp.url, MAIL_FROM: FROM, MAIL_DELAY_S: '2', ONLINE_WINDOW_S: '1' },
        null,
      );
      // Amina's mail first: once she sends, she is online for ONLINE_WINDOW_S (1 s), and a message
      // to an online user is not mailed. Youssef sends nothing.
      await a.start(USERS.sara, { listing_id: LISTINGS.aminasOwn, text: 'from sara to amina' });
      await a.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'from amina' });
      await b.start(USERS.sara, { listing_id: LISTINGS.bike, text: 'from sara' });
      await until(() => smtp.mails.length >= 3, 15_000);
      await until(settled(a), 15_000);
      await sleep(1500);
      assert.deepEqual(smtp.mails.map((m) => `${m.to.join().toLowerCase()} ${/> (.*)/.exec(m.text)![1]}`).sort(), [
        'amina@example.com from sara to amina',
        'youssef@example.com from amina',
        'youssef@example.com from sara',
      ]);
      assert.equal(a.souk.mail!.stats.sent + b.souk.mail!.stats.sent, 3);
    },
  );
});
