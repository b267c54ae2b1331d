/**
 * Markup in messages on Souk's own databases (issue 26, finding 2, as far as its rule applies):
 * D6 stores text verbatim there (readers escape it; nothing prints it as HTML), so the bypasses
 * that the WordPress tables strip (test/store/mysql/site-text.test.ts) are kept byte for byte, in
 * the row and in the reply, and every reply is JSON, never HTML.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';

const MESSAGE = '/wp-json/rtcl/v1/my/chat/message';
const TEXTS = [
  'hello <<b>img src=x onerror=alert(1)>',
  '<scr<script>ipt>alert(1)</script>',
  'a <img src=x onerror=alert(1)',
  '&lt;script&gt;',
  'x<!-- c -->y',
  '</ script>',
  '<IMG SRC=x ONERROR=alert(1)>',
  '<img alt="a>b" src=x onerror=alert(1)>',
];

it('keeps markup verbatim on SQLite and PostgreSQL, in the row and the JSON reply', async () => {
  const t = await startTestSouk({ RATE_LIMIT_PER_USER: '0' });
  const file = { url: 'https://cdn.example/a.png', name: '<<b>img src=x onerror=alert(1)>.png', mime_type: 'image/png<b>' };
  const started = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: TEXTS[0], files: [file] });
  assert.equal(started.statusCode, 200, started.body);
  assert.match(String(started.headers['content-type']), /^application\/json/);
  assert.deepEqual(started.json().newMessage.attachments, [file]);
  const conId = started.json().con_id as number;
  for (const text of TEXTS) {
    const sent = await t.post(MESSAGE, { con_id: conId, text }, t.auth(USERS.amina));
    assert.equal(sent.statusCode, 200, sent.body);
    assert.match(String(sent.headers['content-type']), /^application\/json/);
    assert.equal(sent.json().message, text);
    const row = await t.souk.store.db
      .selectFrom('messages')
      .select('message')
      .where('id', '=', Number(sent.json().message_id))
      .executeTakeFirstOrThrow();
    assert.equal(row.message, text, 'stored verbatim (D6)');
  }
});
