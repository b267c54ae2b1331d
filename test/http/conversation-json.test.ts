/**
 * The start-conversation reply is assembled as JSON text (src/present/chat/conversation.ts) from the
 * listing's images and terms as stored (src/store/common/media-json.ts). These tests hold it to the
 * bytes the ConversationReply schema's own serialiser writes, whatever order the import document
 * gave the keys in, and check that migration 003 brings rows stored before into that form.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fastJson from 'fast-json-stringify';
import { ConversationReply } from '../../src/present/chat/schemas.js';
import { imagesJson, termsJson } from '../../src/store/common/media-json.js';
import { listingJsonAsWireMigration } from '../../src/store/common/migrations/003-listing-json-as-wire.js';
import { startTestSouk } from '../helpers/souk.js';
import { image, marketplace, term, USERS } from '../helpers/fixtures.js';

const serialiseReply = fastJson(ConversationReply);

/** The object with its keys in reverse order, at every level. */
function reversed<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reversed) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversed(v)]),
  ) as T;
}

// Characters a serialiser must escape or may pass through: quotes, backslash, a control
// character, non-ASCII, an emoji (a surrogate pair) and U+2028.
const AWKWARD = 'He said "1\\2"\t— café 🚲 \u2028end';

function awkwardMarketplace() {
  const doc = marketplace();
  doc.listings!.push({
    id: 201,
    owner_id: USERS.youssef,
    title: AWKWARD,
    slug: 'awkward',
    price: '99.5',
    images: reversed([{ ...image(601, 'awkward'), title: AWKWARD, srcset: 'a.jpg 300w' }, image(602, 'plain')]),
    category: reversed([{ ...term(31, AWKWARD, 'rtcl_category'), description: AWKWARD }]),
    location: reversed([term(41, 'Fès', 'rtcl_location')]),
  });
  return doc;
}

describe('start-conversation reply as JSON text', () => {
  it('is byte for byte what the schema serialiser writes, with keys in the interface order', async () => {
    const t = await startTestSouk({}, awkwardMarketplace());
    const res = await t.start(USERS.amina, { listing_id: 201, text: AWKWARD, temp_id: '12' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    const reply = res.json();
    assert.equal(res.body, serialiseReply(reply));
    assert.equal(reply.listing.title, AWKWARD);
    assert.equal(reply.listing.images[0].title, AWKWARD);
    assert.deepEqual(Object.keys(reply.listing.images[0]), Object.keys(image(1, 'x')));
    assert.deepEqual(Object.keys(reply.listing.category[0]), Object.keys(term(1, 'x', 'y')));
    assert.equal(reply.newMessage.message, AWKWARD);
    assert.equal(res.headers['content-length'], String(Buffer.byteLength(res.body)));

    // The same listing again (now from the cache), on an existing conversation.
    const again = await t.start(USERS.amina, { listing_id: 201, text: 'second' });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.body, serialiseReply(again.json()));
    assert.deepEqual(again.json().listing, reply.listing);
  });

  it('migration 003 rewrites listings stored in the import document order, and leaves what it cannot read', async () => {
    const t = await startTestSouk();
    const db = t.souk.store.db;
    const images = [{ ...image(701, 'old'), srcset: 'b.jpg 300w' }];
    const category = [term(51, 'Old', 'rtcl_category')];
    // How rows were stored before: JSON.stringify of the objects as imported.
    await db
      .insertInto('listings')
      .values([
        {
          id: 301,
          owner_id: USERS.youssef,
          title: 'Old row',
          slug: 'old-row',
          status: 'publish',
          price: '5',
          images: JSON.stringify(reversed(images)),
          category: JSON.stringify(reversed(category)),
          location: '[]',
          updated_at: Date.now(),
        },
        {
          id: 302,
          owner_id: USERS.youssef,
          title: 'Odd row',
          slug: 'odd-row',
          status: 'publish',
          price: '5',
          images: '[{"ID":"not a number"}]',
          category: '[]',
          location: '[]',
          updated_at: Date.now(),
        },
      ])
      .execute();
    await listingJsonAsWireMigration.up(db);

    const rows = await db
      .selectFrom('listings')
      .select(['id', 'images', 'category', 'location'])
      .where('id', 'in', [301, 302])
      .orderBy('id')
      .execute();
    assert.deepEqual(rows, [
      { id: 301, images: imagesJson(images), category: termsJson(category), location: '[]' },
      { id: 302, images: '[{"ID":"not a number"}]', category: '[]', location: '[]' },
    ]);
    const res = await t.start(USERS.amina, { listing_id: 301, text: 'hello' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.body, serialiseReply(res.json()));
    assert.deepEqual(res.json().listing.images, images);
  });
});
