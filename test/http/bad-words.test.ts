/**
 * The `bad_words` setting (docs/safety-reports.md): whole words, whatever their case or width
 * (NFKC), refused 400 with the plugin's message by default, masked with `bad_words_action mask`,
 * on the start and on a message; changed while the server runs. On SQLite, and on PostgreSQL with
 * TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { startTestSouk } from '../helpers/souk.js';

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
    assert.equal(res.json().message, '****, a ****. Western  union?');
    res = await t.start(USERS.sara, { listing_id: LISTINGS.bike, text: 'scam western union' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().newMessage.message, '**** *************');

    // Emptied: nothing is screened.
    await set('bad_words', '');
    res = await send(conId, 'scam');
    assert.equal(res.json().message, 'scam');
  });
});
