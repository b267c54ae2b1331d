/**
 * Reports that cannot be used to fill the database (docs/safety.md): a NUL or a lone surrogate in a
 * report's words is refused as in chat text; REPORTS_PER_HOUR per reporter; one open report per
 * reporter and conversation (or listing), a repeat answered as before and stored nothing; each
 * reported message kept once, whatever the number of reports naming it. Through a listening
 * server. On SQLite, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';

const API = '/wp-json/rtcl/v1';
const bad = (error_message: string) => ({ status: 'error', error: 'BADREQUEST', code: '400', error_message });

/** POSTs JSON to the listening server as `user`; the status and the parsed reply. */
function poster(t: TestSouk, base: string) {
  return async (user: number, path: string, body: unknown) => {
    const reply = await fetch(`${base}${API}/${path}`, {
      method: 'POST',
      headers: { ...t.auth(user), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await reply.text();
    return { status: reply.status, body: JSON.parse(text) as unknown, headers: reply.headers };
  };
}

describe('report limits', () => {
  it('refuses a NUL or half a surrogate pair in a report, as chat text', async () => {
    const t = await startTestSouk();
    const post = poster(t, await t.listen());
    const conId = ((await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json() as { con_id: number }).con_id;
    let res = await post(USERS.amina, 'listing/report', { listing_id: LISTINGS.bike, message: 'scam\u0000' });
    assert.deepEqual([res.status, res.body], [400, bad('message must not contain the NUL character (U+0000).')]);
    res = await post(USERS.amina, 'my/chat/report', { con_id: conId, reason: 'rude\u0000' });
    assert.deepEqual([res.status, res.body], [400, bad('reason must not contain the NUL character (U+0000).')]);
    res = await post(USERS.amina, 'my/chat/report', { con_id: conId, reason: 'rude \ud800' });
    assert.deepEqual(
      [res.status, res.body],
      [400, bad('reason must be valid Unicode: it holds half of a surrogate pair (U+D800-U+DFFF) without the other half.')],
    );
    assert.deepEqual(await t.souk.store.reports.list({ open: false, limit: 10 }), []);
  });

  it('keeps one open report per reporter and conversation or listing, and each reported message once', async () => {
    const t = await startTestSouk();
    const post = poster(t, await t.listen());
    const conId = ((await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json() as { con_id: number }).con_id;
    for (let i = 0; i < 4; i++) {
      const sent = await t.post(
        `${API}/my/chat/message`,
        { con_id: conId, text: `message ${i}` },
        t.auth(i % 2 ? USERS.amina : USERS.youssef),
      );
      assert.equal(sent.statusCode, 200, sent.body);
    }
    const count = async (table: 'reports' | 'report_message_copies' | 'report_messages') =>
      Number(
        (
          await t.souk.store.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    for (const reason of ['spam', 'spam again']) {
      const res = await post(USERS.amina, 'my/chat/report', { con_id: conId, reason });
      assert.deepEqual([res.status, res.body], [200, { reported: true }]);
    }
    // The repeat (and one about a message of the same conversation) answered alike, stored nothing.
    const messageId = (await t.souk.store.repos.messages.pageOf(conId, 0, 0, 1))[0]!.id;
    const repeat = await post(USERS.amina, 'my/chat/report', { con_id: conId, message_id: messageId, reason: 'this one' });
    assert.deepEqual([repeat.status, repeat.body], [200, { reported: true }]);
    assert.deepEqual([await count('reports'), await count('report_message_copies'), await count('report_messages')], [1, 5, 5]);
    // The other participant's report of the same conversation names the same five copies.
    assert.equal((await post(USERS.youssef, 'my/chat/report', { con_id: conId, reason: 'rude' })).status, 200);
    assert.deepEqual([await count('reports'), await count('report_message_copies'), await count('report_messages')], [2, 5, 10]);
    const [theirs, mine] = await t.souk.store.reports.list({ open: false, limit: 10 });
    assert.deepEqual(
      theirs!.messages.map((m) => m.text),
      ['Hello', 'message 0', 'message 1', 'message 2', 'message 3'],
    );
    assert.deepEqual(mine!.messages, theirs!.messages);

    // listing/report: a repeat answers the count as it is.
    assert.deepEqual((await post(USERS.amina, 'listing/report', { listing_id: LISTINGS.bike, message: 'fake' })).body, 1);
    assert.deepEqual((await post(USERS.amina, 'listing/report', { listing_id: LISTINGS.bike, message: 'fake!' })).body, 1);
    assert.deepEqual((await post(USERS.sara, 'listing/report', { listing_id: LISTINGS.bike })).body, 2);
    assert.equal(await count('reports'), 4);

    // Erasing a reporter forgets their reports; the copies stay while another report names them.
    await t.souk.store.reports.forgetMadeBy(USERS.amina);
    assert.deepEqual([await count('reports'), await count('report_message_copies'), await count('report_messages')], [2, 5, 5]);
    await t.souk.store.reports.forgetMadeBy(USERS.youssef);
    assert.deepEqual([await count('report_message_copies'), await count('report_messages')], [0, 0]);
  });

  it('counts reports against REPORTS_PER_HOUR; a repeat does not count', async () => {
    const t = await startTestSouk({ REPORTS_PER_HOUR: '2' });
    const post = poster(t, await t.listen());
    const conId = ((await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json() as { con_id: number }).con_id;
    assert.equal((await post(USERS.amina, 'listing/report', { listing_id: LISTINGS.bike })).status, 200);
    assert.equal((await post(USERS.amina, 'listing/report', { listing_id: LISTINGS.bike })).status, 200, 'a repeat');
    assert.equal((await post(USERS.amina, 'my/chat/report', { con_id: conId, reason: 'spam' })).status, 200);
    const over = await post(USERS.amina, 'listing/report', { listing_id: LISTINGS.table });
    assert.deepEqual(
      [over.status, over.body],
      [
        429,
        {
          status: 'error',
          error: 'TOO_MANY_REQUESTS',
          code: '429',
          error_message: 'Too many reports in the last hour. Retry after the number of seconds in the Retry-After header.',
        },
      ],
    );
    assert.ok(Number(over.headers.get('retry-after')) > 0);
    assert.equal(
      (await post(USERS.amina, 'my/chat/report', { con_id: conId, reason: 'spam' })).status,
      429,
      'over, a repeat is refused too',
    );
    assert.equal((await post(USERS.sara, 'listing/report', { listing_id: LISTINGS.bike })).status, 200, 'another reporter');
    assert.equal((await t.souk.store.reports.list({ open: false, limit: 10 })).length, 3);
  });
});
