/**
 * The worked integration of docs/server-api.md, step by step through a real listening server: a
 * marketplace back end creates a seller, a buyer and a listing with its server key, hands the buyer
 * a token at its own sign-in, the app favourites the listing and writes to the seller, who reads
 * it; then the back end closes a report and disables the buyer, whose token stops working.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { newServerKey, serverKeyDigest } from '../../src/auth/server-keys.js';
import { startTestSouk } from '../helpers/souk.js';
import { until } from '../helpers/until.js';

describe('the worked integration of docs/server-api.md', () => {
  it('creates users and a listing, hands out a token, and the app favourites and chats with it', async () => {
    // An empty marketplace: everything comes from the back end.
    const t = await startTestSouk({ SETTINGS_REFRESH_MS: '100' }, { users: [], listings: [] });
    const address = await t.listen();
    const key = newServerKey();
    await t.souk.store.serverKeys.add('backend', serverKeyDigest(key), Date.now());
    await t.souk.serverKeys.refresh();
    const S = `${address}/souk/v1`;
    const A = `${address}/wp-json/rtcl/v1`;
    const json = (method: string, url: string, headers: Record<string, string>, body?: unknown) =>
      fetch(url, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));
    const server = (method: string, path: string, body?: unknown) => json(method, `${S}${path}`, { authorization: `Bearer ${key}` }, body);
    const app = (method: string, path: string, token: string, body?: unknown) =>
      json(method, `${A}${path}`, { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey }, body);

    // 1. Users and listings.
    assert.equal((await server('PUT', '/users/7', { login: 'youssef', name: 'Youssef A.', email: 'youssef@example.com' })).status, 200);
    assert.equal((await server('PUT', '/users/8', { login: 'amina', name: 'Amina B.' })).status, 200);
    const listing = { owner_id: 7, title: 'City bike', price: '180', status: 'publish' };
    assert.deepEqual(await server('PUT', '/listings/101', listing), { status: 200, json: { id: 101 } });

    // 2. Amina signs in on the marketplace: its back end asks Souk for her token.
    const issued = await server('POST', '/users/8/tokens', { ttl: 86400 });
    assert.equal(issued.status, 200);
    const token = issued.json.jwt_token as string;

    // 3. The app favourites the listing and writes to its seller.
    const saved = await app('POST', '/my/favourites', token, { listing_id: 101 });
    assert.deepEqual(saved, { status: 200, json: [101] });
    const favourites = await app('GET', '/my/favourites', token);
    assert.equal(favourites.json.data[0].title, 'City bike');
    const started = await app('POST', '/my/chat/conversation', token, { listing_id: 101, text: 'Is the bike still for sale?' });
    assert.equal(started.status, 200, JSON.stringify(started.json));
    assert.equal(Number(started.json.recipient_id), 7);

    // 4. Youssef reads it with his own token, and answers.
    const seller = (await server('POST', '/users/7/tokens')).json.jwt_token as string;
    const chats = await app('GET', '/my/chat', seller);
    assert.equal(chats.status, 200);
    assert.equal(chats.json.data.length, 1);
    assert.equal(chats.json.data[0].message, 'Is the bike still for sale?');
    const answer = await app('POST', '/my/chat/message', seller, { con_id: started.json.con_id, listing_id: 101, text: 'Yes!' });
    assert.equal(answer.status, 200);

    // 5. Moderation: Youssef reports the conversation; the back end closes it and disables Amina.
    assert.equal((await app('POST', '/my/chat/report', seller, { con_id: started.json.con_id, reason: 'spam' })).status, 200);
    const open = await server('GET', '/reports?status=open');
    assert.equal(open.json.data.length, 1);
    assert.equal(open.json.data[0].reported_user_id, 8);
    assert.equal((await server('POST', `/reports/${open.json.data[0].id}/close`, { reason: 'spammer disabled' })).json.changed, true);
    assert.equal((await server('POST', '/users/8/disable', { reason: 'spam' })).json.changed, true);
    await until(async () => (await app('GET', '/my', token)).status !== 200);
    const audit = (await t.souk.store.audit.list({ actor: 'backend', limit: 100 })).map((r) => r.action).reverse();
    assert.deepEqual(audit, ['user.upsert', 'user.upsert', 'listing.upsert', 'user.token', 'user.token', 'report.close', 'user.disable']);
  });
});
