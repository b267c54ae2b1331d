/**
 * Reports (docs/safety.md): POST listing/report as the plugin (the report count, the
 * owner refused, an unknown listing), POST my/chat/report for a conversation or one message (a
 * participant only, N3; a copy of the messages that later changes do not touch), each stored and
 * sent as a `report.created` webhook. On SQLite, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { startTestSouk } from '../helpers/souk.js';
import { until } from '../helpers/until.js';
import { webhookReceiver } from '../helpers/webhook-receiver.js';

const API = '/wp-json/rtcl/v1';
const bad = (error_message: string) => ({ status: 'error', error: 'BADREQUEST', code: '400', error_message });
const NO_PERMISSION = { code: 'FORBIDDEN', message: 'You are not permitted to access this conversation.' };

describe('reports', () => {
  it('listing/report, my/chat/report: stored, counted, refused as they should be, and sent as report.created', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const hooks = await webhookReceiver(secret);
    const t = await startTestSouk({ WEBHOOK_URLS: hooks.url, WEBHOOK_SECRET: secret });
    const report = (user: number, body: unknown) => t.post(`${API}/listing/report`, body, t.auth(user));
    const chatReport = (user: number, body: unknown) => t.post(`${API}/my/chat/report`, body, t.auth(user));

    // listing/report: the count, this report included; a repeat of an open report is answered the
    // count and stores nothing, even at once with another reporter's.
    let res = await report(USERS.amina, { listing_id: LISTINGS.bike, message: 'A scam.' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.body, '1');
    const both = await Promise.all([report(USERS.sara, { listing_id: LISTINGS.bike }), report(USERS.amina, { listing_id: LISTINGS.bike })]);
    assert.deepEqual([both[0].statusCode, both[0].body, both[1].statusCode], [200, '2', 200]);
    // The repeat counts what committed before it: Sara's report, or not yet.
    assert.ok(['1', '2'].includes(both[1].body), both[1].body);
    res = await report(USERS.sara, { listing_id: String(LISTINGS.bike), message: '' });
    assert.equal(res.body, '2');
    // The owner may not; an unknown listing is the plugin's "Listing not found.".
    res = await report(USERS.youssef, { listing_id: LISTINGS.bike, message: 'mine' });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), bad('You are not permitted to report.'));
    res = await report(USERS.amina, { listing_id: 999, message: 'x' });
    assert.deepEqual([res.statusCode, res.json()], [400, bad('Listing not found.')]);
    res = await report(USERS.amina, { message: 'x' });
    assert.deepEqual(res.json(), bad('listing_id is required and must be a positive integer.'));
    res = await report(USERS.amina, { listing_id: LISTINGS.bike, message: 'x'.repeat(5001) });
    assert.deepEqual([res.statusCode, res.json()], [400, bad('message must be at most 5000 characters.')]);
    res = await report(USERS.amina, { listing_id: LISTINGS.bike, message: ['x'] });
    assert.deepEqual([res.statusCode, res.json()], [400, bad('message must be a string.')]);
    // Form bodies and the query string, as the plugin reads its parameters.
    res = await t.souk.app.inject({
      method: 'POST',
      url: `${API}/listing/report?listing_id=${LISTINGS.table}`,
      payload: 'message=old',
      headers: { ...t.auth(USERS.amina), 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.deepEqual([res.statusCode, res.body], [200, '1']);

    // my/chat/report: a conversation with three messages, then one of them.
    const started = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Is it still available?' })).json();
    const conId = started.con_id;
    const answer = await t.post(`${API}/my/chat/message`, { con_id: conId, text: 'Pay me by gift card first.' }, t.auth(USERS.youssef));
    const bad1 = answer.json();
    res = await chatReport(USERS.amina, { con_id: conId, message_id: bad1.message_id, reason: 'Asks for gift cards' });
    assert.deepEqual([res.statusCode, res.json()], [200, { reported: true }]);
    // Once the operator closed it, the conversation may be reported again.
    const [first] = await t.souk.store.reports.list({ open: true, limit: 1 });
    assert.equal(await t.souk.store.reports.close(first!.id, Date.now()), 'closed');
    res = await chatReport(USERS.amina, { con_id: conId, reason: 'The whole thing' });
    assert.deepEqual([res.statusCode, res.body], [200, '{"reported":true}']);
    // N3: not a participant, no such conversation; a message of another conversation; no reason.
    res = await chatReport(USERS.sara, { con_id: conId, reason: 'nosy' });
    assert.deepEqual([res.statusCode, res.json()], [403, NO_PERMISSION]);
    res = await chatReport(USERS.amina, { con_id: 99999, reason: 'x' });
    assert.deepEqual([res.statusCode, res.json()], [403, NO_PERMISSION]);
    res = await chatReport(USERS.amina, { con_id: conId, message_id: 99999, reason: 'x' });
    assert.deepEqual([res.statusCode, res.json()], [400, bad('message_id is not a message of this conversation.')]);
    res = await chatReport(USERS.amina, { con_id: conId, reason: '  ' });
    assert.deepEqual([res.statusCode, res.json()], [400, bad('reason is required: say why the conversation or message is reported.')]);
    res = await chatReport(USERS.amina, { con_id: conId, reason: '😀'.repeat(5001) });
    assert.deepEqual([res.statusCode, res.json()], [400, bad('reason must be at most 5000 characters.')]);
    res = await chatReport(USERS.amina, { reason: 'x' });
    assert.deepEqual(res.json(), bad('con_id is required and must be a positive integer.'));

    // Stored: newest first, the copies as they were.
    const stored = await t.souk.store.reports.list({ open: false, limit: 100 });
    assert.equal(stored.length, 5);
    const [whole, one] = stored;
    assert.equal(whole!.kind, 'conversation');
    assert.equal(whole!.reportedUserId, USERS.youssef);
    assert.deepEqual(
      whole!.messages.map((m) => m.text),
      ['Is it still available?', 'Pay me by gift card first.'],
    );
    assert.equal(one!.kind, 'message');
    assert.equal(one!.messageId, bad1.message_id);
    assert.deepEqual(
      one!.messages.map((m) => [m.id, m.text, m.sourceId]),
      [[bad1.message_id, 'Pay me by gift card first.', USERS.youssef]],
    );
    assert.equal(stored.at(-1)!.kind, 'listing');
    assert.equal(stored.at(-1)!.reason, 'A scam.');
    assert.equal(stored.at(-1)!.reportedUserId, USERS.youssef);

    // Later changes to the messages leave the copy as it was (the erasure's and moderation's own writes are elsewhere).
    await t.souk.store.db.updateTable('messages').set({ message: '' }).where('con_id', '=', conId).execute();
    const again = await t.souk.store.reports.list({ open: false, limit: 2 });
    assert.equal(again[1]!.messages[0]!.text, 'Pay me by gift card first.');

    // Every report is a report.created webhook, the reporter's event.
    const reportsReceived = () => hooks.received.map((r) => r.body).filter((b) => b.type === 'report.created');
    await until(() => reportsReceived().length >= 5);
    const created = reportsReceived();
    assert.equal(created.length, 5);
    const message = created.find((b) => b.data.report.kind === 'message');
    assert.equal(message.user_id, USERS.amina);
    assert.deepEqual(Object.keys(message.data.report), [
      'report_id',
      'kind',
      'reporter_id',
      'reported_user_id',
      'listing_id',
      'con_id',
      'message_id',
      'reason',
      'messages',
      'created_at',
    ]);
    assert.deepEqual(message.data.report.messages, [bad1]);
    assert.equal(message.data.report.reason, 'Asks for gift cards');
  });
});
