/**
 * A sender takes back or corrects their message on a WordPress database (docs/chat-plus.md): the
 * plugin's messages row emptied as its admin's removal leaves it, or its text replaced with the
 * time of the edit in its `meta`; the history in Souk's own `souk_message_edits`; and a 2.x site's
 * tables (no `meta`, no `type`), read back in the classic generation.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, type TestSouk } from '../../helpers/souk.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';

const JWT_SECRET = 'souk-own-messages-test-secret-0123456789';
const { alice: ALICE, bob: BOB } = SITE_USERS;
const { iphone: IPHONE } = SITE_LISTINGS;
const API = '/wp-json/rtcl/v1';
const MESSAGE = `${API}/my/chat/message`;
const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';

const auth = (t: TestSouk, user: number) => ({
  authorization: `Bearer ${t.token(user, { login: SITE_LOGINS[user] })}`,
  'x-api-key': t.apiKey,
});
const request = (t: TestSouk, user: number, method: 'DELETE' | 'PATCH' | 'POST' | 'PUT', url: string, body: unknown = {}) =>
  t.app.inject({ method, url, headers: { ...auth(t, user), 'content-type': 'application/json' }, payload: JSON.stringify(body) });

async function conversation(t: TestSouk) {
  const res = await t.post(`${API}/my/chat/conversation`, { listing_id: IPHONE, text: 'Is it unlocked?' }, auth(t, ALICE));
  assert.equal(res.statusCode, 200, res.body);
  return res.json().con_id as number;
}
async function send(t: TestSouk, conId: number, text: string) {
  const res = await request(t, ALICE, 'POST', MESSAGE, { con_id: conId, text });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().message_id as number;
}

describe('taking back and correcting a message on a WordPress site', { skip }, () => {
  it("in the plugin's 4.x table: emptied as its admin's removal, corrected with meta.edited_at, the history kept", async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    const t = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET }, null);
    const conId = await conversation(t);
    const row = async (id: number) => {
      const [found] = await site.query<{ type: string; message: string; meta: unknown }>(
        'select type, message, meta from wp_rtcl_conversation_messages where message_id = ?',
        [id],
      );
      return { ...found!, meta: typeof found!.meta === 'string' ? JSON.parse(found!.meta) : found!.meta };
    };

    const gone = await send(t, conId, 'Call me on 555 0100');
    let res = await request(t, ALICE, 'DELETE', `${MESSAGE}?con_id=${conId}&message_id=${gone}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().message, '');
    assert.deepEqual(await row(gone), { type: 'system', message: '', meta: null });
    // Again: 200, nothing more; the other participant may not.
    assert.equal((await request(t, ALICE, 'DELETE', `${MESSAGE}?con_id=${conId}&message_id=${gone}`)).statusCode, 200);
    res = await request(t, BOB, 'DELETE', `${MESSAGE}?con_id=${conId}&message_id=${gone}`);
    assert.deepEqual([res.statusCode, res.json().code], [403, 'FORBIDDEN']);

    const kept = await send(t, conId, 'Price is 300?');
    res = await request(t, ALICE, 'PATCH', MESSAGE, { con_id: conId, message_id: kept, text: 'Price is <b>290</b>?' });
    assert.equal(res.statusCode, 200, res.body);
    const edited = res.json();
    // The site's text rules hold for a correction too (tags stripped, as a send strips them).
    assert.equal(edited.message, 'Price is 290?');
    assert.match(edited.meta.edited_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const stored = await row(kept);
    assert.equal(stored.message, 'Price is 290?');
    assert.equal(typeof stored.meta.edited_at, 'number');
    const history = await site.query<{ previous_text: string; text: string; source_id: number }>(
      'select previous_text, text, source_id from wp_souk_message_edits where message_id = ?',
      [kept],
    );
    assert.deepEqual(
      history.map((h) => [h.previous_text, h.text, Number(h.source_id)]),
      [['Price is 300?', 'Price is 290?', ALICE]],
    );
    // The current reads show the corrected text and its meta.
    const read = await t.app.inject({ method: 'GET', url: `${API}/my/chat/conversation?con_id=${conId}`, headers: auth(t, BOB) });
    const shown = read.json().messages.find((m: any) => Number(m.message_id) === kept);
    assert.equal(shown.message, 'Price is 290?');
    assert.deepEqual(JSON.parse(shown.meta), { edited_at: edited.meta.edited_at });

    // Read by the owner: no more corrections.
    assert.equal((await request(t, BOB, 'PUT', `${MESSAGE}?con_id=${conId}&message_id=${kept}`)).statusCode, 200);
    res = await request(t, ALICE, 'PATCH', MESSAGE, { con_id: conId, message_id: kept, text: 'Price is 280?' });
    assert.deepEqual(
      [res.statusCode, res.json().message],
      [403, 'You are not permitted to edit a message the other participant has read.'],
    );

    // A removal forgets the history with the text.
    assert.equal((await request(t, ALICE, 'DELETE', `${MESSAGE}?con_id=${conId}&message_id=${kept}`)).statusCode, 200);
    assert.deepEqual(await site.query('select id from wp_souk_message_edits where message_id = ?', [kept]), []);
  });

  it("in a 2.x site's table (no meta, no type): both work, and the classic reads show them", async () => {
    const site = await wordpressDatabase('../original-2x/wordpress-seeded.sql');
    const t = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET, CHAT_REPLY_FORMAT: 'classic' }, null);
    const conId = await conversation(t);
    const gone = await send(t, conId, 'to take back');
    const kept = await send(t, conId, 'to correct');
    assert.equal((await request(t, ALICE, 'DELETE', `${MESSAGE}?con_id=${conId}&message_id=${gone}`)).statusCode, 200);
    const res = await request(t, ALICE, 'PATCH', MESSAGE, { con_id: conId, message_id: kept, text: 'corrected' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().message, 'corrected');
    const read = await t.app.inject({ method: 'GET', url: `${API}/my/chat/conversation?con_id=${conId}`, headers: auth(t, BOB) });
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(
      read.json().messages.map((m: any) => m.message),
      ['Is it unlocked?', '', 'corrected'],
    );
  });
});
