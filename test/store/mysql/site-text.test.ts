/**
 * Stored XSS on a WordPress site (issue 26, finding 2): the site prints a message's text and its
 * attachments' fields as HTML, so on its tables they are stripped of tags as the plugin strips
 * them, to a fixpoint. The known bypasses go through the real routes (start and message) on
 * MariaDB; the stored row and the reply must hold no markup. Text without tags is kept byte for
 * byte, as the plugin's recorded replies show it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PATHS, startTestSouk } from '../../helpers/souk.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';

const JWT_SECRET = 'souk-site-text-test-secret-0123456789abcdef';
const ALICE = SITE_USERS.alice;
const IPHONE = SITE_LISTINGS.iphone;
const MESSAGE = '/wp-json/rtcl/v1/my/chat/message';
const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';

/** Markup a browser would act on: a `<` opening a tag, an end tag, a comment or a declaration. */
const MARKUP = /<[A-Za-z/!?]/;

// Each with what the plugin's writer (wp_strip_all_tags) leaves of it.
const BYPASSES: [string, string][] = [
  ['hello <<b>img src=x onerror=alert(1)>', 'hello '],
  ['<scr<script>ipt>alert(1)</script>', ''],
  ['<<script>script>alert(1)<</script>/script>', ''],
  ['a <img src=x onerror=alert(1)', 'a '],
  ['&lt;script&gt;alert(1)&lt;/script&gt;', '&lt;script&gt;alert(1)&lt;/script&gt;'],
  ['x<!-- <img src=x onerror=alert(1)> -->y', 'xy'],
  ['</ script><script>alert(1)</script>z', 'z'],
  ['<IMG SRC=x ONERROR=alert(1)>up', 'up'],
  ['<img alt="a>b" src=x onerror=alert(1)>quoted', 'quoted'],
  ['<svg/onload=alert(1)>', ''],
  ['Hi <b>Bob</b>', 'Hi Bob'],
  ['<SCRIPT a>x</script>y<style>z</STYLE>w<script>never closed', 'ywnever closed'],
  ['a < b and c > d & e', 'a < b and c > d & e'],
];

const files = (field: string) => [
  {
    url: 'https://cdn.example/a.png',
    name: `${field} <<b>img src=x onerror=alert(1)>.png`,
    mime_type: 'image/png<scr<script>ipt>',
    size: 3,
  },
];

describe('message text and attachments on the site tables', { skip }, () => {
  it('strips every known bypass to a fixpoint, in the stored row and the reply, on start and message', async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    const t = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET }, null);
    const headers = { authorization: `Bearer ${t.token(ALICE, { login: SITE_LOGINS[ALICE] })}`, 'x-api-key': t.apiKey };
    const started = await t.post(PATHS.start, { listing_id: IPHONE, text: 'first', files: files('start') }, headers);
    assert.equal(started.statusCode, 200, started.body);
    const conId = started.json().con_id as number;
    const startedFiles = started.json().newMessage.attachments as { name: string; mime_type: string }[];
    assert.equal(startedFiles[0]!.name, 'start .png');
    assert.equal(startedFiles[0]!.mime_type, 'image/png');

    for (const [text, stored] of BYPASSES) {
      const sent = await t.post(MESSAGE, { con_id: conId, text, files: files('message') }, headers);
      assert.equal(sent.statusCode, 200, sent.body);
      const reply = sent.json();
      assert.equal(reply.message, stored, `reply to ${JSON.stringify(text)}`);
      const [row] = await site.query<{ message: string; attachments: unknown }>(
        `select message, attachments from wp_rtcl_conversation_messages where message_id = ${Number(reply.message_id)}`,
      );
      assert.equal(row!.message, stored, `stored ${JSON.stringify(text)}`);
      assert.doesNotMatch(row!.message, MARKUP);
      const storedFiles = typeof row!.attachments === 'string' ? row!.attachments : JSON.stringify(row!.attachments);
      assert.doesNotMatch(storedFiles, MARKUP, 'attachments as stored');
      assert.deepEqual(JSON.parse(storedFiles), reply.attachments, 'the reply carries the attachments as stored');
    }

    const nul = await t.post(MESSAGE, { con_id: conId, text: 'a\u0000<img src=x onerror=alert(1)>' }, headers);
    assert.equal(nul.statusCode, 400, 'NUL in text is refused on every database');
    // NUL and lone surrogates in attachment fields are refused on every database (a lone surrogate
    // answered 500 here: MariaDB's utf8mb4 has no form for it).
    for (const name of ['<\u0000img src=x onerror=alert(1)>b.png', 'b\ud800.png']) {
      const refused = await t.post(MESSAGE, { con_id: conId, text: '', files: [{ url: 'https://cdn.example/b.png', name }] }, headers);
      assert.equal(refused.statusCode, 400, refused.body);
    }
    const startRefused = await t.post(
      PATHS.start,
      { listing_id: IPHONE, text: 'x', files: [{ url: 'https://cdn.example/c.png', mime_type: 'image/png\udc00' }] },
      headers,
    );
    assert.equal(startRefused.statusCode, 400, startRefused.body);
  });
});
