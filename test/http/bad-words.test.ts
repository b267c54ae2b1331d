/**
 * The `bad_words` setting (docs/safety.md): whole words, whatever their case or width
 * (NFKC), refused 400 with the plugin's message by default, masked with `bad_words_action mask`,
 * on the start and on a message; changed while the server runs; not hidden by invisible characters
 * or doubled spaces, nor in the names of a message's files. On SQLite, and on PostgreSQL with
 * TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { startTestSouk } from '../helpers/souk.js';

/** A PDF's bytes: its magic, then filler (types are read from the bytes). */
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1'), Buffer.alloc(512, 32)]);

const API = '/wp-json/rtcl/v1';
const bad = (error_message: string) => ({ status: 'error', error: 'BADREQUEST', code: '400', error_message });

describe('bad words', () => {
  it('refuses or masks whole words on the start and on a message, as the setting says', async () => {
    const t = await startTestSouk();
    const set = async (key: string, value: string) => {
      await t.souk.store.settings.set(key, value);
      await t.souk.settings.refresh();
    };
    const send = (conId: number, text: string) => t.post(`${API}/my/chat/message`, { con_id: conId, text }, t.auth(USERS.youssef));

    // No list: nothing is refused.
    let res = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Is this a scam?' });
    assert.equal(res.statusCode, 200, res.body);
    const conId = res.json().con_id;

    await set('bad_words', 'scam, Western Union ,');
    res = await t.start(USERS.sara, { listing_id: LISTINGS.bike, text: 'Pay by ＷＥＳＴＥＲＮ union, no ＳＣＡＭ' });
    assert.deepEqual([res.statusCode, res.json()], [400, bad('Your message contains inappropriate words (scam, western union).')]);
    // Nothing was stored: Sara has no conversation.
    assert.equal(await t.souk.store.repos.conversations.countFor(USERS.sara, false), 0);
    res = await send(conId, 'Scam!');
    assert.deepEqual([res.statusCode, res.json()], [400, bad('Your message contains inappropriate words (scam).')]);
    // Whole words only.
    res = await send(conId, 'The scammer and scams are not here; unionwestern neither.');
    assert.equal(res.statusCode, 200, res.body);

    await set('bad_words_action', 'mask');
    res = await send(conId, 'ＳＣＡＭ, a scam. Western  union?');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().message, '****, a ****. **************?');
    res = await t.start(USERS.sara, { listing_id: LISTINGS.bike, text: 'scam western union' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().newMessage.message, '**** *************');

    // Emptied: nothing is screened.
    await set('bad_words', '');
    res = await send(conId, 'scam');
    assert.equal(res.json().message, 'scam');
  });

  it('sees through zero-width characters, soft hyphens and doubled or broken spaces, and screens file names', async () => {
    const t = await startTestSouk({ FILES_SWEEP_INTERVAL_S: '0' });
    const base = await t.listen();
    await t.souk.store.settings.set('bad_words', 'scam,western union');
    await t.souk.settings.refresh();
    const post = async (path: string, body: unknown) => {
      const reply = await fetch(`${base}${API}/${path}`, {
        method: 'POST',
        headers: { ...t.auth(USERS.amina), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: reply.status, body: (await reply.json()) as any };
    };
    const refused = (...words: string[]) => ({
      status: 400,
      body: bad(`Your message contains inappropriate words (${words.join(', ')}).`),
    });
    let res = await post('my/chat/conversation', { listing_id: LISTINGS.bike, text: 'Hello' });
    assert.equal(res.status, 200);
    const conId = res.body.con_id;
    const say = (text: string, files?: unknown) => post('my/chat/message', { con_id: conId, text, ...(files ? { files } : {}) });
    for (const hidden of ['s\u200bcam', 'sc\u00adam', 's\u200dc\u2060a\ufeffm', 'sca\u034fm', 'SC\u180eAM']) {
      assert.deepEqual(await say(`this is no ${hidden}`), refused('scam'), JSON.stringify(hidden));
    }
    for (const spaced of ['western  union', 'western\nunion', 'western \r\n\t union', 'western\u00a0\u2003union', 'western\u200b union']) {
      assert.deepEqual(await say(`pay by ${spaced}`), refused('western union'), JSON.stringify(spaced));
    }
    // A file named in JSON, or uploaded, with the words in its name: refused as the text would be.
    assert.deepEqual(
      await say('see the file', [{ url: 'https://example.com/a.pdf', name: 'western union receipt.pdf' }]),
      refused('western union'),
    );
    const data = new FormData();
    data.append('con_id', String(conId));
    data.append('text', 'see the file');
    data.append('files[]', new Blob([PDF], { type: 'application/pdf' }), 'scam\u200b.pdf');
    const uploaded = await fetch(`${base}${API}/my/chat/message`, { method: 'POST', headers: t.auth(USERS.amina), body: data });
    assert.deepEqual({ status: uploaded.status, body: await uploaded.json() }, refused('scam'));
    // Words apart stay apart; a name without the words passes.
    res = await say('western. union, scammer', [{ url: 'https://example.com/b.pdf', name: 'receipt.pdf' }]);
    assert.equal(res.status, 200, JSON.stringify(res.body));

    // Masked: the names too, and a match with invisible characters or broken spaces inside it whole.
    await t.souk.store.settings.set('bad_words_action', 'mask');
    await t.souk.settings.refresh();
    res = await say('a s\u200bcam by western\n union', [{ url: 'https://example.com/c.pdf', name: 'scam.pdf' }]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.message, 'a ***** by **************');
    assert.equal(res.body.attachments[0].name, '****.pdf');
  });
});
