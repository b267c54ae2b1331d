/** Listings and users are cached between requests; imports must still show through (at once for listings). */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { importCatalog } from '../../src/domain/catalog.js';
import { parseImportDocument } from '../../src/cli/import-document.js';
import { gravatarUrl } from '../../src/present/user.js';

it('a re-imported listing is shown as imported in the next conversation reply', async () => {
  const t = await startTestSouk();
  // Asked for twice, the listing is cached; the third reply comes from the cache.
  const replies = [];
  for (const text of ['hi', 'hello?', 'anyone?']) replies.push((await t.start(USERS.amina, { listing_id: LISTINGS.bike, text })).json());
  for (const reply of replies) {
    assert.equal(reply.listing.title, 'Road bike');
    assert.equal(reply.listing.raw_price, '1200');
  }
  const first = replies[0];

  const parsed = parseImportDocument({
    listings: [{ id: LISTINGS.bike, owner_id: USERS.youssef, title: 'Road bike, new tyres', slug: 'road-bike', price: '1100' }],
  });
  assert.ok(parsed.ok);
  assert.deepEqual(await importCatalog(t.souk.store, parsed.catalog), { ok: true, users: 0, listings: 1 });

  const second = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'still there?' })).json();
  assert.equal(second.listing.title, 'Road bike, new tyres');
  assert.equal(second.listing.raw_price, '1100');
  assert.deepEqual(second.listing.images, [], 'fields left out of the new document take their defaults');
  assert.equal(second.con_id, first.con_id);
});

it('a re-imported listing is shown as imported in the next GET my/chat/conversation and GET my/chat', async () => {
  const t = await startTestSouk();
  const conId = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'hi' })).json().con_id as number;
  const read = async () => {
    const get = (url: string) => t.app.inject({ method: 'GET', url: `/wp-json/rtcl/v1/${url}`, headers: t.auth(USERS.amina) });
    const [conversation, list] = await Promise.all([get(`my/chat/conversation?con_id=${conId}`), get('my/chat')]);
    assert.equal(conversation.statusCode, 200, conversation.body);
    assert.equal(list.statusCode, 200, list.body);
    const listed = (list.json().data as { con_id: number; listing: unknown }[]).find((c) => c.con_id === conId);
    return [conversation.json().listing, listed?.listing] as { title: string; raw_price: string }[];
  };
  // Read three times: the listing is cached after the second and the third comes from the cache.
  for (let i = 0; i < 3; i++) for (const listing of await read()) assert.equal(listing?.title, 'Road bike');

  const parsed = parseImportDocument({
    listings: [{ id: LISTINGS.bike, owner_id: USERS.youssef, title: 'Road bike, new tyres', slug: 'road-bike', price: '1100' }],
  });
  assert.ok(parsed.ok);
  assert.deepEqual(await importCatalog(t.souk.store, parsed.catalog), { ok: true, users: 0, listings: 1 });
  for (const listing of await read()) {
    assert.equal(listing?.title, 'Road bike, new tyres');
    assert.equal(listing?.raw_price, '1100');
  }
});

it('a user disabled by an import is refused after the next settings poll (SETTINGS_REFRESH_MS)', async () => {
  const t = await startTestSouk();
  assert.equal((await t.toggle(USERS.amina, { listing_id: LISTINGS.bike })).statusCode, 200);
  const parsed = parseImportDocument({ users: [{ id: USERS.amina, login: 'amina', disabled: true }] });
  assert.ok(parsed.ok);
  await importCatalog(t.souk.store, parsed.catalog);
  await t.souk.settings.refresh(); // the poll SETTINGS_REFRESH_MS runs, awaited rather than slept for
  const refused = await t.toggle(USERS.amina, { listing_id: LISTINGS.bike });
  assert.equal(refused.statusCode, 403);
  assert.deepEqual(refused.json(), { code: 'FORBIDDEN', message: 'You are not logged in.' });
});

it("the listing owner's profile changed by an import shows in conversation replies after the next settings poll", async () => {
  const t = await startTestSouk();
  const before = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'hi' })).json();
  assert.equal(before.recipient.id, USERS.youssef);
  assert.equal(before.recipient.name, 'Youssef B.');
  assert.equal(before.recipient.profile_picture, 'https://cdn.example/y.png');
  // No profile picture in the new document: the reply shows the Gravatar of the new address.
  const parsed = parseImportDocument({
    users: [{ id: USERS.youssef, login: 'youssef', name: 'Youssef Benali', email: 'youssef@new.example' }],
  });
  assert.ok(parsed.ok);
  await importCatalog(t.souk.store, parsed.catalog);
  await t.souk.settings.refresh(); // the poll SETTINGS_REFRESH_MS runs, awaited rather than slept for
  const after = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'hello?' })).json();
  assert.equal(after.recipient.name, 'Youssef Benali');
  assert.equal(after.recipient.email, 'youssef@new.example');
  assert.equal(after.recipient.profile_picture, gravatarUrl('youssef@new.example'));
  assert.equal(after.con_id, before.con_id);
});
