import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, PATHS } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { deleteListings } from '../../src/domain/catalog.js';

const LISTING_ID_ERROR = {
  status: 'error',
  error: 'BADREQUEST',
  code: '400',
  error_message: 'listing_id is required and must be a positive integer.',
};
const NOT_FOUND = { status: 'error', error: 'BADREQUEST', code: '400', error_message: 'Listing not found.' };

describe('POST /my/favourites', () => {
  it('adds, removes and re-adds a listing, replying with the final list each time', async () => {
    const t = await startTestSouk();
    const add = await t.toggle(USERS.amina, { listing_id: LISTINGS.bike });
    assert.equal(add.statusCode, 200);
    assert.match(add.headers['content-type'] as string, /^application\/json/);
    assert.equal(add.body, '[101]');
    const remove = await t.toggle(USERS.amina, { listing_id: LISTINGS.bike });
    assert.equal(remove.statusCode, 200);
    assert.equal(remove.body, '[]');
    const again = await t.toggle(USERS.amina, { listing_id: LISTINGS.bike });
    assert.deepEqual(again.json(), [101]);
  });

  it('lists favourites oldest addition first, per user', async () => {
    const t = await startTestSouk();
    for (const id of [LISTINGS.table, LISTINGS.bike, LISTINGS.draft]) await t.toggle(USERS.amina, { listing_id: id });
    assert.deepEqual((await t.toggle(USERS.amina, { listing_id: LISTINGS.bike })).json(), [103, 102]);
    assert.deepEqual((await t.toggle(USERS.amina, { listing_id: LISTINGS.bike })).json(), [103, 102, 101]);
    assert.deepEqual((await t.toggle(USERS.sara, { listing_id: LISTINGS.draft })).json(), [102]);
  });

  it("toggles listings in any status but trash, including the caller's own", async () => {
    const t = await startTestSouk();
    for (const id of [LISTINGS.draft, LISTINGS.table, LISTINGS.aminasOwn]) {
      assert.equal((await t.toggle(USERS.amina, { listing_id: id })).statusCode, 200);
    }
    const trashed = await t.toggle(USERS.amina, { listing_id: LISTINGS.trashed });
    assert.equal(trashed.statusCode, 400);
    assert.deepEqual(trashed.json(), NOT_FOUND);
    const missing = await t.toggle(USERS.amina, { listing_id: 999 });
    assert.equal(missing.statusCode, 400);
    assert.deepEqual(missing.json(), NOT_FOUND);
    assert.deepEqual((await t.toggle(USERS.amina, { listing_id: LISTINGS.draft })).json(), [103, 104]);
  });

  it('drops a deleted listing from every favourite list', async () => {
    const t = await startTestSouk();
    await t.toggle(USERS.amina, { listing_id: LISTINGS.bike });
    await t.toggle(USERS.amina, { listing_id: LISTINGS.table });
    await t.toggle(USERS.sara, { listing_id: LISTINGS.bike });
    const { deleted } = await deleteListings(t.souk.store, [LISTINGS.bike]);
    assert.deepEqual(deleted, [101]);
    assert.deepEqual((await t.toggle(USERS.amina, { listing_id: LISTINGS.draft })).json(), [103, 102]);
    assert.deepEqual((await t.toggle(USERS.sara, { listing_id: LISTINGS.draft })).json(), [102]);
    assert.deepEqual((await t.toggle(USERS.sara, { listing_id: LISTINGS.bike })).json(), NOT_FOUND);
  });

  it('accepts listing_id as a JSON integer or a string of digits, in JSON and form bodies (D2, D3)', async () => {
    const t = await startTestSouk();
    assert.deepEqual((await t.toggle(USERS.amina, { listing_id: '101' })).json(), [101]);
    const form = await t.post(PATHS.toggle, 'listing_id=103', {
      ...t.auth(USERS.amina),
      'content-type': 'application/x-www-form-urlencoded',
    });
    assert.equal(form.statusCode, 200);
    assert.deepEqual(form.json(), [101, 103]);
    const charset = await t.post(PATHS.toggle, '{"listing_id":103}', {
      ...t.auth(USERS.amina),
      'content-type': 'application/json; charset=utf-8',
    });
    assert.deepEqual(charset.json(), [101]);
    const extra = await t.toggle(USERS.amina, { listing_id: 102, con_id: 0, whatever: [1] });
    assert.deepEqual(extra.json(), [101, 102]);
  });

  for (const [label, body] of [
    ['missing', {}],
    ['null', { listing_id: null }],
    ['zero', { listing_id: 0 }],
    ['negative', { listing_id: -5 }],
    ['a fraction', { listing_id: 1.5 }],
    ['digits with letters', { listing_id: '12abc' }],
    ['an empty string', { listing_id: '' }],
    ['a signed string', { listing_id: '+101' }],
    ['a boolean', { listing_id: true }],
    ['an array', { listing_id: [101] }],
    ['an object', { listing_id: { id: 101 } }],
    ['above 2^53-1', { listing_id: 9007199254740992 }],
    ['a digit string above 2^53-1', { listing_id: '9007199254740993' }],
    ['a huge number', { listing_id: 1e308 }],
  ] as const) {
    it(`answers 400 BADREQUEST when listing_id is ${label}`, async () => {
      const t = await startTestSouk();
      const res = await t.toggle(USERS.amina, body);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), LISTING_ID_ERROR);
    });
  }

  it('accepts the largest safe id and reports it as not found', async () => {
    const t = await startTestSouk();
    const res = await t.toggle(USERS.amina, { listing_id: '9007199254740991' });
    assert.deepEqual(res.json(), NOT_FOUND);
  });

  it('keeps the state 50 concurrent toggles imply, over a real socket', async () => {
    const t = await startTestSouk();
    const base = await t.listen();
    const headers = { ...t.auth(USERS.amina), 'content-type': 'application/json' };
    const send = () => fetch(base + PATHS.toggle, { method: 'POST', headers, body: JSON.stringify({ listing_id: LISTINGS.bike }) });
    const replies = await Promise.all(Array.from({ length: 50 }, send));
    assert.deepEqual(
      replies.map((r) => r.status),
      Array(50).fill(200),
    );
    const lists = (await Promise.all(replies.map((r) => r.json()))) as number[][];
    // Serialised toggles alternate: exactly 25 replies saw the listing added, 25 saw it removed.
    assert.equal(lists.filter((l) => l.includes(101)).length, 25);
    assert.ok(lists.every((l) => l.length <= 1));
    const final = await send();
    assert.deepEqual(await final.json(), [101]); // 50 toggles left it out; the 51st adds it
    const rows = await t.souk.store.db.selectFrom('favourites').selectAll().execute();
    assert.equal(rows.length, 1);
  });
});
