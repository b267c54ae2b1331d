/**
 * Attachment addresses (issue 26, info a): a message's `files[].url` naming this machine or its
 * network is refused on both routes that write a message, 400 shape B naming the field, nothing
 * stored; every spelling of those addresses the URL standard accepts is caught, and public
 * addresses and names are stored as sent. Quotes, angle brackets, backticks and backslashes,
 * which no URL holds unencoded, are refused as a bad `files` shape.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';

const MESSAGE = '/wp-json/rtcl/v1/my/chat/message';
const B = (message: string) => ({ status: 'error', error: 'BADREQUEST', code: '400', error_message: message });
const NOT_PUBLIC = B(
  'files[].url must not name a loopback, private, link-local, unspecified, multicast or other non-public address, nor localhost.',
);
const BAD_SHAPE = B('files must be an array of at most 10 objects {url, name?, mime_type?, size?} with an http(s) url.');

const REFUSED = [
  'http://127.0.0.1/a.png',
  'http://127.1/a.png',
  'http://0x7f000001/a.png',
  'http://0x7f.1/a.png',
  'http://2130706433/a.png',
  'http://017700000001/a.png',
  'http://127.0.0.1./a.png',
  'http://[::1]/a.png',
  'http://[::ffff:127.0.0.1]/a.png',
  'http://[0:0:0:0:0:ffff:7f00:1]/a.png',
  'http://localhost:8080/a.png',
  'HTTP://LOCALHOST./a.png',
  'http://files.localhost/a.png',
  'http://0.0.0.0/a.png',
  'http://0/a.png',
  'http://[::]/a.png',
  'http://10.1.2.3/a.png',
  'http://172.16.0.1/a.png',
  'http://192.168.1.10/a.png',
  'http://[fc00::1]/a.png',
  'http://[fd12:3456::1]/a.png',
  'http://169.254.169.254/latest/meta-data/',
  'http://[fe80::1]/a.png',
  'http://224.0.0.1/a.png',
  'http://[ff02::1]/a.png',
  'http://255.255.255.255/a.png',
  'http://100.64.0.1/a.png',
  'http://[64:ff9b::a00:1]/a.png',
  'https://user:pass@192.168.0.1:8443/a.png',
];
const ACCEPTED = [
  'https://cdn.example/a.png',
  'https://8.8.8.8/a.png',
  'http://[2606:4700:4700::1111]/a.png',
  'http://[::ffff:8.8.8.8]/a.png',
];
const BAD_CHARACTERS = [
  'https://cdn.example/a.png"onmouseover="alert(1)',
  'https://cdn.example/<img>',
  'https://cdn.example\\@127.0.0.1/',
  'https://cdn.example/`x`',
];

const messageCount = async (t: TestSouk) => (await t.souk.store.db.selectFrom('messages').select('id').execute()).length;

describe('files[].url', () => {
  it('refuses loopback, private, link-local, unspecified and multicast addresses on start and message, storing nothing', async () => {
    const t = await startTestSouk({ RATE_LIMIT_PER_USER: '0' });
    const first = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'hi' });
    assert.equal(first.statusCode, 200, first.body);
    const conId = first.json().con_id as number;
    const before = await messageCount(t);
    for (const url of REFUSED) {
      const files = [{ url: 'https://cdn.example/ok.png' }, { url, name: 'a.png' }];
      const started = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: '', files });
      assert.equal(started.statusCode, 400, `start ${url}: ${started.body}`);
      assert.deepEqual(started.json(), NOT_PUBLIC, url);
      const sent = await t.post(MESSAGE, { con_id: conId, text: 'see', files }, t.auth(USERS.amina));
      assert.equal(sent.statusCode, 400, `message ${url}: ${sent.body}`);
      assert.deepEqual(sent.json(), NOT_PUBLIC, url);
    }
    for (const url of BAD_CHARACTERS) {
      const sent = await t.post(MESSAGE, { con_id: conId, text: 'see', files: [{ url }] }, t.auth(USERS.amina));
      assert.deepEqual([sent.statusCode, sent.json()], [400, BAD_SHAPE], url);
    }
    assert.equal(await messageCount(t), before, 'nothing stored');
    for (const url of ACCEPTED) {
      const sent = await t.post(MESSAGE, { con_id: conId, text: '', files: [{ url }] }, t.auth(USERS.amina));
      assert.equal(sent.statusCode, 200, `${url}: ${sent.body}`);
      assert.equal(sent.json().attachments[0].url, url, 'stored as sent');
    }
  });
});
