/**
 * FCM beside Expo (issue 50): with a service account configured, push-notification/register also
 * takes an FCM registration token, and a new message is pushed to it through FCM HTTP v1, once
 * per message and device, beside the Expo devices, through real local HTTP servers standing in
 * for Google's token endpoint and FCM (test/helpers/fcm-receiver.ts: they verify the assertion's
 * RS256 signature with the account's public key). UNREGISTERED and INVALID_ARGUMENT drop the
 * token; 429 waits for its Retry-After; 5xx is retried; the access token is cached until shortly
 * before it expires; the key is never printed.
 * On SQLite, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { expoReceiver } from '../helpers/expo-receiver.js';
import { fcmReceiver, fcmToken } from '../helpers/fcm-receiver.js';
import { until } from '../helpers/until.js';
import { effectiveSettings, loadConfig } from '../../src/config.js';

const API = '/wp-json/rtcl/v1';
const REGISTER = `${API}/push-notification/register`;
const ADD_DEVICE = `${API}/push-notification/add-device`;
const expoToken = (name: string) => `ExponentPushToken[${name}]`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function fcmSouk(env: Record<string, string> = {}, receiver: { expiresInS?: number } = {}) {
  const expo = await expoReceiver();
  const fcm = await fcmReceiver(receiver);
  const t = await startTestSouk({ EXPO_PUSH_URL: expo.url, PUSH_APP_SCHEME: 'souktest', ...fcm.env, ...env });
  return { t, expo, fcm };
}

const register = (t: TestSouk, userId: number, body: unknown, path = REGISTER) => t.post(path, body, t.auth(userId));

const settled = (t: TestSouk) => async () => (await t.souk.store.pushOutbox!.list(100)).every((d) => d.status !== 'pending');

describe('push-notification/register with FCM', () => {
  it('takes an FCM registration token beside Expo tokens; add-device too', async () => {
    const { t } = await fcmSouk();
    const reply = await register(t, USERS.youssef, { push_token: fcmToken('youssef-pixel'), events: ['chat'] });
    assert.equal(reply.statusCode, 200, reply.body);
    assert.deepEqual(reply.json(), { push_token: fcmToken('youssef-pixel'), events: ['chat'] });
    assert.equal((await register(t, USERS.youssef, { push_token: fcmToken('youssef-tab') }, ADD_DEVICE)).statusCode, 200);
    assert.equal((await register(t, USERS.youssef, { push_token: expoToken('youssef-iphone') })).statusCode, 200);
    assert.deepEqual(
      (await t.souk.store.pushDevices!.tokensOf(USERS.youssef)).sort(),
      [fcmToken('youssef-pixel'), fcmToken('youssef-tab'), expoToken('youssef-iphone')].sort(),
    );
  });

  it('refuses a token of neither form (400), and an FCM token where no service account is configured', async () => {
    const { t } = await fcmSouk();
    const message =
      'push_token is required and must be an Expo push token (ExponentPushToken[...] or ExpoPushToken[...]) or an FCM registration token.';
    const refused = [
      {},
      { push_token: 'not-a-token' },
      { push_token: 'APA91b'.padEnd(150, 'x') },
      { push_token: `short:${'A'.repeat(150)}` },
      { push_token: `${'a'.repeat(11)}:${'A'.repeat(99)}` },
      { push_token: `${'a'.repeat(11)}:${'A'.repeat(250)}` },
      { push_token: `${'a'.repeat(11)}:${'A/+='.repeat(40)}` },
      { push_token: `${'a'.repeat(11)}: ${'A'.repeat(150)}` },
    ];
    for (const body of refused) {
      const reply = await register(t, USERS.amina, body);
      assert.equal(reply.statusCode, 400, JSON.stringify(body));
      assert.deepEqual(reply.json(), { status: 'error', error: 'BADREQUEST', code: '400', error_message: message });
    }
    assert.deepEqual(await t.souk.store.pushDevices!.tokensOf(USERS.amina), []);

    const plain = await startTestSouk({});
    const noFcm = await register(plain, USERS.amina, { push_token: fcmToken('amina') });
    assert.equal(noFcm.statusCode, 400);
    assert.equal(
      noFcm.json().error_message,
      'push_token is required and must be an Expo push token: ExponentPushToken[...] or ExpoPushToken[...].',
    );
  });
});

describe('pushes through FCM', () => {
  it('pushes a new message once to each FCM and Expo device, with an access token from the JWT-bearer grant, cached', async () => {
    const { t, expo, fcm } = await fcmSouk();
    await register(t, USERS.youssef, { push_token: fcmToken('youssef-pixel') });
    await register(t, USERS.youssef, { push_token: fcmToken('youssef-tab') });
    await register(t, USERS.youssef, { push_token: expoToken('youssef-iphone') });
    await register(t, USERS.amina, { push_token: fcmToken('amina-pixel') });
    const started = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Is it still available?', temp_id: 7 })).json();
    await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Is it still available?', temp_id: 7 });
    await until(() => fcm.sends.length >= 2 && expo.messages().length >= 1);
    await until(settled(t));
    const url = `souktest://conversation/${started.con_id}/${LISTINGS.bike}`;
    assert.deepEqual(
      fcm.messages().sort((a, b) => a.token.localeCompare(b.token)),
      [fcmToken('youssef-pixel'), fcmToken('youssef-tab')].sort().map((token) => ({
        token,
        notification: { title: 'Amina K.', body: 'Is it still available?' },
        data: { url },
        android: { priority: 'high', notification: { sound: 'default' } },
        apns: { payload: { aps: { sound: 'default' } } },
      })),
    );
    assert.deepEqual(
      expo.messages().map((m) => [m.to, m.body, m.data.url]),
      [[expoToken('youssef-iphone'), 'Is it still available?', url]],
    );
    // His answer goes to her FCM device with the same access token: one grant so far.
    await t.post(`${API}/my/chat/message`, { con_id: started.con_id, text: 'Yes it is' }, t.auth(USERS.youssef));
    await until(() => fcm.sends.length === 3);
    await until(settled(t));
    await sleep(300);
    assert.equal(fcm.sends.length, 3);
    assert.deepEqual(
      fcm.messages().map((m) => [m.token, m.notification.body]),
      [
        ...fcm
          .messages()
          .slice(0, 2)
          .map((m) => [m.token, 'Is it still available?']),
        [fcmToken('amina-pixel'), 'Yes it is'],
      ],
    );
    assert.equal(fcm.tokenRequests.length, 1);
    assert.equal(new Set(fcm.sends.map((s) => s.authorization)).size, 1);
    // The assertion the token endpoint verified: the account's own claims, its key's id.
    const { claims } = fcm.tokenRequests[0]!;
    assert.equal(claims.iss, fcm.serviceAccount.client_email);
    assert.equal(claims.aud, fcm.serviceAccount.token_uri);
    assert.equal(claims.scope, 'https://www.googleapis.com/auth/firebase.messaging');
    assert.equal(claims.kid, 'test-key-1');
    assert.equal((claims.exp as number) - (claims.iat as number), 3600);
    assert.deepEqual(fcm.refusedAssertions, []);
    assert.deepEqual(
      (await t.souk.store.pushOutbox!.list(10)).map((r) => [r.status, r.lastError]),
      [
        ['sent', null],
        ['sent', null],
      ],
    );
  });

  it('asks for a new access token shortly before the cached one expires', async () => {
    // 64 s: renewed a minute before its end, so 4 s after it was given.
    const { t, fcm } = await fcmSouk({}, { expiresInS: 64 });
    await register(t, USERS.youssef, { push_token: fcmToken('youssef') });
    const started = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'one' })).json();
    await until(() => fcm.sends.length === 1);
    await t.post(`${API}/my/chat/message`, { con_id: started.con_id, text: 'two' }, t.auth(USERS.amina));
    await until(() => fcm.sends.length === 2);
    const given = fcm.tokenRequests[0]!.at;
    // Both within its life: one grant.
    if (fcm.sends[1]!.at < given + 3500) assert.equal(fcm.tokenRequests.length, 1);
    await sleep(given + 4200 - Date.now());
    await t.post(`${API}/my/chat/message`, { con_id: started.con_id, text: 'three' }, t.auth(USERS.amina));
    await until(() => fcm.sends.length === 3);
    assert.equal(fcm.tokenRequests.length, 2);
    assert.notEqual(fcm.sends[2]!.authorization, fcm.sends[0]!.authorization);
  });

  it('drops a token FCM answers UNREGISTERED or INVALID_ARGUMENT for, and keeps the others', async () => {
    const { t, fcm } = await fcmSouk();
    for (const name of ['gone', 'invalid', 'alive']) await register(t, USERS.youssef, { push_token: fcmToken(name) });
    fcm.state.unregistered.add(fcmToken('gone'));
    fcm.state.invalid.add(fcmToken('invalid'));
    await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'hello' });
    await until(settled(t));
    assert.deepEqual(await t.souk.store.pushDevices!.tokensOf(USERS.youssef), [fcmToken('alive')]);
    assert.deepEqual(
      fcm.messages().map((m) => m.token),
      [fcmToken('alive')],
    );
    const [row] = await t.souk.store.pushOutbox!.list(1);
    assert.equal(row!.status, 'sent');
    assert.equal(row!.lastError, '2 device(s) not registered, dropped');
  });

  it('waits for a 429 Retry-After, then pushes to the throttled device only: each device once', async () => {
    const { t, expo, fcm } = await fcmSouk({ PUSH_RETRY_BASE_MS: '100' });
    fcm.state.retryAfterS = 2;
    await register(t, USERS.youssef, { push_token: fcmToken('throttled') });
    await register(t, USERS.youssef, { push_token: fcmToken('fine') });
    await register(t, USERS.youssef, { push_token: expoToken('iphone') });
    fcm.state.throttleOnce.add(fcmToken('throttled'));
    const sentAt = Date.now();
    await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'once each' });
    await until(async () => (await t.souk.store.pushOutbox!.list(1))[0]!.attempts === 1);
    const [waiting] = await t.souk.store.pushOutbox!.list(1);
    assert.equal(waiting!.status, 'pending');
    assert.equal(waiting!.lastError, 'FCM: HTTP 429 QUOTA_EXCEEDED');
    assert.equal(waiting!.reached.length, 2);
    assert.ok(waiting!.nextAttemptAt - sentAt >= 2000, 'not before Retry-After');
    await until(settled(t), 10_000);
    await sleep(300);
    const throttled = fcm.sends.find((s) => s.message.token === fcmToken('throttled'))!;
    assert.ok(throttled.at - sentAt >= 1900, `the retry came ${throttled.at - sentAt} ms after`);
    assert.deepEqual(
      fcm
        .messages()
        .map((m) => m.token)
        .sort(),
      [fcmToken('fine'), fcmToken('throttled')].sort(),
    );
    assert.deepEqual(
      expo.messages().map((m) => m.to),
      [expoToken('iphone')],
    );
    assert.equal((await t.souk.store.pushOutbox!.list(1))[0]!.status, 'sent');
  });

  it('retries while FCM answers 5xx and delivers once it is back; gives up after PUSH_RETRY_FOR_S', async () => {
    const { t, fcm } = await fcmSouk({ PUSH_RETRY_BASE_MS: '100' });
    fcm.state.mode = 'down';
    await register(t, USERS.youssef, { push_token: fcmToken('youssef') });
    await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'are you there?' });
    await until(async () => (await t.souk.store.pushOutbox!.list(1))[0]!.attempts >= 2);
    const [failing] = await t.souk.store.pushOutbox!.list(1);
    assert.equal(failing!.status, 'pending');
    assert.equal(failing!.lastError, 'FCM: HTTP 503 UNAVAILABLE');
    assert.equal(fcm.sends.length, 0);
    fcm.state.mode = 'ok';
    await until(settled(t));
    await sleep(300);
    assert.deepEqual(
      fcm.messages().map((m) => [m.token, m.notification.body]),
      [[fcmToken('youssef'), 'are you there?']],
    );

    const late = await fcmSouk({ PUSH_RETRY_BASE_MS: '600', PUSH_RETRY_FOR_S: '1' });
    late.fcm.state.mode = 'down';
    await register(late.t, USERS.youssef, { push_token: fcmToken('youssef') });
    await late.t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'lost in time' });
    await until(settled(late.t), 10_000);
    assert.equal((await late.t.souk.store.pushOutbox!.list(1))[0]!.status, 'failed');
  });

  it('retries when the token endpoint refuses the grant, and names no secret in the outbox', async () => {
    const fcm = await fcmReceiver();
    // Another key signs: the endpoint cannot verify the assertion with the account's public key.
    const other = await fcmReceiver();
    const forged = await startTestSouk({
      ...fcm.env,
      FCM_SERVICE_ACCOUNT_JSON: JSON.stringify({ ...fcm.serviceAccount, private_key: other.privateKey }),
      PUSH_RETRY_BASE_MS: '100',
    });
    await register(forged, USERS.youssef, { push_token: fcmToken('youssef') });
    await forged.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'hello' });
    await until(async () => (await forged.souk.store.pushOutbox!.list(1))[0]!.attempts >= 1);
    const [row] = await forged.souk.store.pushOutbox!.list(1);
    assert.equal(row!.status, 'pending');
    assert.equal(row!.lastError, 'no FCM access token: the token endpoint answered HTTP 400 invalid_grant');
    assert.ok(fcm.refusedAssertions.includes('bad signature'));
    assert.equal(fcm.sends.length, 0);
  });
});

describe('FCM settings', () => {
  it('reads the service account from FCM_SERVICE_ACCOUNT_FILE or _JSON, and never prints the key', async () => {
    const { fcm } = await fcmSouk();
    const config = loadConfig({ ...fcm.env });
    assert.equal(config.push.fcmServiceAccount?.projectId, 'souk-test-project');
    assert.equal(config.push.fcmServiceAccount?.tokenUri, fcm.serviceAccount.token_uri);
    const printed = effectiveSettings(config)
      .map(([name, value]) => `${name}=${value}`)
      .join('\n');
    assert.match(printed, /FCM_SERVICE_ACCOUNT_JSON=project souk-test-project \(key \*\*\*\*\)/);
    assert.ok(!printed.includes('PRIVATE KEY'));
    assert.ok(!printed.includes(fcm.privateKey.split('\n')[1]!));
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const file = join(mkdtempSync(join(tmpdir(), 'souk-fcm-')), 'account.json');
    writeFileSync(file, JSON.stringify(fcm.serviceAccount), { mode: 0o600 });
    assert.equal(loadConfig({ FCM_SERVICE_ACCOUNT_FILE: file }).push.fcmServiceAccount?.clientEmail, fcm.serviceAccount.client_email);
    assert.throws(() => loadConfig({ FCM_SERVICE_ACCOUNT_FILE: file, FCM_SERVICE_ACCOUNT_JSON: '{}' }), /both set/);
    assert.throws(() => loadConfig({ FCM_SERVICE_ACCOUNT_JSON: '{"type":"service_account"' }), /is not a service account key/);
    const { private_key: _key, ...keyless } = fcm.serviceAccount;
    assert.throws(
      () => loadConfig({ FCM_SERVICE_ACCOUNT_JSON: JSON.stringify(keyless) }),
      (err: Error) => /has no "private_key"/.test(err.message) && !err.message.includes('BEGIN'),
    );
    assert.throws(
      () => loadConfig({ FCM_SERVICE_ACCOUNT_JSON: JSON.stringify({ ...fcm.serviceAccount, token_uri: 'ftp://x' }) }),
      /"token_uri" must be an absolute http\(s\) address/,
    );
  });
});
