/**
 * privacy/listing/block (docs/safety.md, "Blocking"): the routes in the plugin's shapes and texts,
 * with Souk's fixes; a blocked listing, and every listing of a blocked user, left out of the
 * blocker's favourites list (as the plugin's Query::exclude_blocked_listings_users); starting a
 * conversation about a blocked listing refused. On SQLite, and on PostgreSQL when TEST_DATABASE_URL names one.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { LISTINGS, USERS } from '../../../helpers/fixtures.js';
import { startTestSouk, type TestSouk } from '../../../helpers/souk.js';

const API = '/wp-json/rtcl/v1';
const BLOCK = `${API}/privacy/listing/block`;
const FAVOURITES = `${API}/my/favourites`;
const { amina, youssef, sara } = USERS;
const { bike, aminasOwn, trashed, draft } = LISTINGS;

const BLOCKED = { code: 'FORBIDDEN', message: 'You cannot send messages to this user.' };
const notFound = (message: string) => ({ code: 'rtcl_rest_validation_error', message, data: { status: 404 } });
const bad = (error_message: string) => ({ status: 'error', error: 'BADREQUEST', code: '400', error_message });

function expectReply(res: LightMyRequestResponse, status: number, body: unknown, label = ''): void {
  assert.equal(res.statusCode, status, `${label} ${res.body}`);
  assert.equal(res.body, JSON.stringify(body), label);
}

function call(t: TestSouk, method: 'GET' | 'POST' | 'DELETE', url: string, as: number, body?: unknown) {
  const headers: Record<string, string> = { ...t.auth(as), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  return t.app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
}

const block = (t: TestSouk, as: number, listingId: number) => call(t, 'POST', BLOCK, as, { listing_id: listingId });
const unblock = (t: TestSouk, as: number, listingId: number) => call(t, 'DELETE', `${BLOCK}?listing_id=${listingId}`, as);
const shown = async (t: TestSouk, as: number, classic = false) => {
  const res = await call(t, 'GET', FAVOURITES, as);
  assert.equal(res.statusCode, 200, res.body);
  const body = JSON.parse(res.body) as { data: { listing_id: number }[]; pagination: { total: number } | null };
  void classic;
  return { ids: body.data.map((l) => Number(l.listing_id)), total: body.pagination?.total ?? 0 };
};

describe('privacy/listing/block', () => {
  it('lists, adds and removes as the plugin does, with its texts, and the fixes', async () => {
    const t = await startTestSouk();
    expectReply(await call(t, 'GET', BLOCK, sara), 200, []);
    expectReply(await block(t, sara, bike), 200, [{ id: bike, title: 'Road bike' }]);
    expectReply(await block(t, sara, bike), 200, [{ id: bike, title: 'Road bike' }], 'twice: one entry (Fix)');
    expectReply(await call(t, 'POST', `${BLOCK}?listing_id=${aminasOwn}`, sara), 200, [
      { id: bike, title: 'Road bike' },
      { id: aminasOwn, title: "Amina's chair" },
    ]);
    // A draft is not shown on the site: to others than its owner it is as missing (Fix: the plugin answers its title).
    expectReply(await block(t, amina, draft), 404, notFound('Listing not found.'), 'a draft');
    expectReply(await block(t, youssef, draft), 400, bad('You cannot block your own listing.'), 'own draft');
    expectReply(await block(t, amina, aminasOwn), 400, bad('You cannot block your own listing.'), 'own listing (Fix)');
    expectReply(await block(t, sara, 999), 404, notFound('Listing not found.'));
    expectReply(await block(t, sara, trashed), 404, notFound('Listing not found.'), 'in the trash');
    expectReply(await call(t, 'POST', BLOCK, sara, {}), 400, bad('listing_id is required and must be a positive integer.'));
    expectReply(await unblock(t, sara, 999), 404, notFound('Listing not found.'));
    expectReply(await unblock(t, youssef, bike), 404, notFound('Listing not exist at blocked list.'));
    expectReply(await unblock(t, sara, bike), 200, [{ id: aminasOwn, title: "Amina's chair" }]);
    expectReply(await call(t, 'GET', BLOCK, sara), 200, [{ id: aminasOwn, title: "Amina's chair" }]);
  });

  it('gives no title of a listing the site does not show: pending, draft or expired', async () => {
    const t = await startTestSouk();
    const base = await t.listen();
    const request = async (method: 'GET' | 'POST', listingId?: number) => {
      const reply = await fetch(`${base}${BLOCK}`, {
        method,
        headers: { ...t.auth(sara), ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
        ...(method === 'POST' ? { body: JSON.stringify({ listing_id: listingId }) } : {}),
      });
      return { status: reply.status, body: await reply.text() };
    };
    await t.souk.store.db.updateTable('listings').set({ status: 'pending' }).where('id', '=', aminasOwn).execute();
    for (const id of [draft, aminasOwn]) {
      const res = await request('POST', id);
      assert.deepEqual([res.status, JSON.parse(res.body)], [404, notFound('Listing not found.')]);
      assert.doesNotMatch(res.body, /lamp|chair/i);
    }
    assert.deepEqual(await request('POST', bike), { status: 200, body: JSON.stringify([{ id: bike, title: 'Road bike' }]) });
    // Blocked while published, then sent back to review: it stays in the list, without its title.
    await t.souk.store.db
      .updateTable('listings')
      .set((eb) => ({ status: 'pending', title: 'Road bike (new price)', version: eb('version', '+', 1) }))
      .where('id', '=', bike)
      .execute();
    const listed = await request('GET');
    assert.equal(listed.body, JSON.stringify([{ id: bike, title: '' }]));
  });

  it('leaves blocked listings and the listings of blocked users out of the favourites list, and refuses a start about them', async () => {
    const t = await startTestSouk();
    for (const id of [bike, aminasOwn]) assert.equal((await t.toggle(sara, { listing_id: id })).statusCode, 200);
    assert.deepEqual(await shown(t, sara), { ids: [aminasOwn, bike], total: 2 });

    expectReply(await block(t, sara, bike), 200, [{ id: bike, title: 'Road bike' }]);
    assert.deepEqual(await shown(t, sara), { ids: [aminasOwn], total: 1 }, 'a blocked listing');
    expectReply(await call(t, 'POST', `${API}/my/chat/conversation`, sara, { listing_id: bike, text: 'Hi' }), 403, BLOCKED);
    // The toggle still answers with every favourite (the list it keeps), as the plugin's meta does.
    const toggled = await t.toggle(sara, { listing_id: draft });
    assert.equal(toggled.body, JSON.stringify([bike, aminasOwn, draft]));

    const blockedAmina = await call(t, 'POST', `${API}/privacy/user/block`, sara, { user_id: amina });
    assert.equal(blockedAmina.statusCode, 200, blockedAmina.body);
    assert.deepEqual(await shown(t, sara), { ids: [], total: 0 }, "a blocked user's listings");
    assert.deepEqual(await shown(t, amina), { ids: [], total: 0 });
    // Other users' lists are their own.
    assert.equal((await t.toggle(youssef, { listing_id: aminasOwn })).statusCode, 200);
    assert.deepEqual(await shown(t, youssef), { ids: [aminasOwn], total: 1 });

    expectReply(await unblock(t, sara, bike), 200, []);
    assert.deepEqual(await shown(t, sara), { ids: [bike], total: 1 });
    assert.equal((await call(t, 'DELETE', `${API}/privacy/user/block?user_id=${amina}`, sara)).statusCode, 200);
    assert.deepEqual(await shown(t, sara), { ids: [aminasOwn, bike], total: 2 });
    assert.equal((await call(t, 'POST', `${API}/my/chat/conversation`, sara, { listing_id: bike, text: 'Hi' })).statusCode, 200);
  });
});
