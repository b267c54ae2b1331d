/**
 * The signatures Souk's Pusher events and private channels carry, checked against Pusher's
 * published worked examples ("HTTP API reference", "Generating authentication signatures"; and
 * "Authentication and authorization signatures"): the `pusher` library that signs Souk's requests
 * and answers POST pusher/auth, and the test server's checks that every other Pusher test relies on.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Pusher from 'pusher';
import { apiSignature, channelAuth } from '../helpers/pusher-server.js';

// The worked examples' app.
const EXAMPLE = { appId: '3', key: '278d425bdf160c739803', secret: '7ad3773142a6692b25b8' };
const BODY = '{"name":"foo","channels":["project-3"],"data":"{\\"some\\":\\"data\\"}"}';
const TIMESTAMP = 1353088179;
const BODY_MD5 = 'ec365a775a4cd0599faeb73354201b6f';
const SIGNATURE = 'da454824c97ba181a32ccc17a72625ba02771f50b50e1e7430e47a1f3f457e6c';
const CHANNEL_AUTH = '278d425bdf160c739803:58df8b0c36d6982b82c3ecf6b4662e34fe8c25bba48f5369f135bf843651c3a4';

describe("Pusher's worked examples", () => {
  it("the library signs the HTTP API example's request with the published body_md5 and auth_signature", (t) => {
    t.mock.method(Date, 'now', () => TIMESTAMP * 1000);
    const pusher = new Pusher({ ...EXAMPLE, host: 'api.pusherapp.com' });
    const query = new URLSearchParams(pusher.createSignedQueryString({ method: 'POST', path: '/apps/3/events', body: BODY }));
    assert.deepEqual(Object.fromEntries(query), {
      auth_key: EXAMPLE.key,
      auth_timestamp: String(TIMESTAMP),
      auth_version: '1.0',
      body_md5: BODY_MD5,
      auth_signature: SIGNATURE,
    });
  });

  it("the test server's check gives the example's signature, and another for anything changed", () => {
    const query = { auth_key: EXAMPLE.key, auth_timestamp: String(TIMESTAMP), auth_version: '1.0', body_md5: BODY_MD5 };
    assert.equal(apiSignature(EXAMPLE.secret, 'POST', '/apps/3/events', query), SIGNATURE);
    assert.equal(apiSignature(EXAMPLE.secret, 'POST', '/apps/3/events', { ...query, auth_signature: 'ignored' }), SIGNATURE);
    assert.notEqual(apiSignature(EXAMPLE.secret, 'POST', '/apps/3/batch_events', query), SIGNATURE);
    assert.notEqual(apiSignature('another secret', 'POST', '/apps/3/events', query), SIGNATURE);
  });

  it('the private channel example: the library and the test server give the published auth', () => {
    const pusher = new Pusher({ ...EXAMPLE, host: 'api.pusherapp.com' });
    assert.deepEqual(pusher.authorizeChannel('1234.1234', 'private-foobar'), { auth: CHANNEL_AUTH });
    assert.equal(channelAuth(EXAMPLE, '1234.1234', 'private-foobar'), CHANNEL_AUTH);
  });
});
