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
});
