/**
 * GET my/favourites (docs/routes.md "GET my/favourites", N2, N4) through the real app, on a catalog
 * built from what the recordings show: original/02-favourites.txt (current) and
 * original-2x/02-favourites.txt (classic), replayed step by step.
 *
 * Where Souk's reply may differ from the recorded one, by the spec's decision:
 * - the order: most recently added first (the spec's Fix; the original orders by the listing's
 *   date). In the recordings both orders agree (listing 10 was added after 8, on the same date);
 *   'orders by the time added' shows where they part.
 * - classic items carry `created_at_gmt` and `store` (N4's Fix): compared apart, then left out of
 *   the comparison with the recorded item.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { ImportDocument } from '../../src/cli/import-document.js';
import { importCatalog } from '../../src/domain/catalog.js';
import { parseImportDocument } from '../../src/cli/import-document.js';
import { marketplace, LISTINGS, USERS } from '../helpers/fixtures.js';
import { recordedSteps, shapeOf, type RecordedStep } from '../helpers/recordings.js';
import { PATHS, startTestSouk, type TestSouk } from '../helpers/souk.js';

type Json = Record<string, any>;

const LIST = PATHS.toggle;
const ALICE = 2;
const BOB = 3;

const json = (res: LightMyRequestResponse) => JSON.parse(res.body) as Json;

/** An import user from a recorded user object (N4): what GET my and a listing's author show. */
function userFrom(u: Json) {
  return {
    id: u.id,
    login: u.username,
    email: u.email,
    phone: u.phone,
    whatsapp: u.whatsapp_number,
    website: u.website,
    first_name: u.first_name,
    last_name: u.last_name,
    description: u.description,
    is_admin: u.isAdmin,
    address: u.address,
    zipcode: u.zipcode,
    latitude: u.latitude,
    longitude: u.longitude,
    locations: u.locations,
  };
}

/** An import listing from a recorded list item; the recordings' site time zone is UTC (`+00:00`). */
function listingFrom(item: Json) {
  return {
    id: item.listing_id,
    owner_id: item.author_id,
    title: item.title,
    status: item.status,
    price: item.raw_price,
    images: item.images,
    category: item.categories,
    location: item.contact.locations,
    pricing_type: item.pricing_type,
    max_price: item.raw_max_price,
    price_type: item.price_type,
    price_units: item.price_units,
    price_unit: item.price_unit,
    ad_type: item.ad_type,
    ...(item.tags ? { tags: item.tags } : {}),
    created_at: `${item.created_at}Z`,
    view_count: item.view_count,
    promotions: item.promotions,
    badges: item.badges,
    contact: item.contact,
  };
}

/** Alice and Bob as GET my recorded them, and the listings of the recorded list [016]. */
function recordedCatalog(folder: 'original' | 'original-2x'): ImportDocument {
  const login = recordedSteps(`${folder}/01-login.txt`);
  const users = ['012', '013'].map((id) => userFrom(JSON.parse(login.get(id)!.replyBody)));
  const list = JSON.parse(recordedSteps(`${folder}/02-favourites.txt`).get('016')!.replyBody) as Json;
  return { users, listings: (list.data as Json[]).map(listingFrom) };
}

function get(t: TestSouk, userId: number, query = '', headers: Record<string, string> = t.auth(userId)) {
  return t.app.inject({ method: 'GET', url: `${LIST}${query}`, headers });
}

/** The recorded request's query string, with its `?`; '' when it has none. */
const queryOf = (step: RecordedStep) => (step.path.includes('?') ? step.path.slice(step.path.indexOf('?')) : '');

/** Replays the recording's steps [014]-[018] and [024]: toggles as recorded, lists compared by the caller. */
async function replay(t: TestSouk, steps: Map<string, RecordedStep>, compare: (reply: Json, recorded: Json, id: string) => void) {
  for (const id of ['014', '015', '016', '017', '018', '024']) {
    const step = steps.get(id)!;
    const userId = id === '024' ? BOB : ALICE;
    const res = step.method === 'POST' ? await t.toggle(userId, JSON.parse(step.body!)) : await get(t, userId, queryOf(step));
    assert.equal(res.statusCode, step.status, `[${id}] ${res.body}`);
    if (step.method === 'POST') assert.deepEqual(json(res), JSON.parse(step.replyBody), `[${id}]`);
    else compare(json(res), JSON.parse(step.replyBody), id);
  }
}

describe('GET my/favourites, current replies', () => {
  const steps = recordedSteps('original/02-favourites.txt');

  it('answers [016], [018] and [024] with the recorded replies: the same keys, order, types and values', async () => {
    const t = await startTestSouk({}, recordedCatalog('original'));
    await replay(t, steps, (reply, recorded, id) => {
      assert.deepEqual(shapeOf(reply), shapeOf(recorded), `[${id}] shape`);
      assert.deepEqual(reply, recorded, `[${id}] values`);
    });
  });

  it('refuses a missing and a non-Bearer Authorization as recorded ([021], [023])', async () => {
    const t = await startTestSouk({}, recordedCatalog('original'));
    for (const id of ['021', '023']) {
      const step = steps.get(id)!;
      const headers: Record<string, string> = { 'x-api-key': t.apiKey };
      if (step.headers.authorization) headers.authorization = step.headers.authorization;
      const res = await get(t, ALICE, '', headers);
      assert.equal(res.statusCode, step.status, id);
      assert.deepEqual(json(res), JSON.parse(step.replyBody), id);
    }
  });

  it('orders by the time added, most recent first, not by the listing date (the Fix)', async () => {
    const t = await startTestSouk({}, recordedCatalog('original'));
    // Listing 10 is the newer listing id on the same date: the original would list it first.
    await t.toggle(ALICE, { listing_id: 10 });
    await t.toggle(ALICE, { listing_id: 8 });
    assert.deepEqual(
      (json(await get(t, ALICE)).data as Json[]).map((i) => i.listing_id),
      [8, 10],
    );
  });

  it('shows only published listings; the others stay in the list the toggle returns', async () => {
    const t = await startTestSouk();
    for (const id of [LISTINGS.bike, LISTINGS.draft, LISTINGS.table]) await t.toggle(USERS.amina, { listing_id: id });
    let list = json(await get(t, USERS.amina));
    assert.deepEqual(
      (list.data as Json[]).map((i) => i.listing_id),
      [LISTINGS.bike],
    );
    assert.deepEqual(list.pagination, { total: 1, count: 1, per_page: 20, current_page: 1, total_pages: 1 });

    const doc = marketplace();
    const bike = doc.listings!.find((l) => l.id === LISTINGS.bike)!;
    const parsed = parseImportDocument({ listings: [{ ...bike, status: 'trash' }] });
    assert.ok(parsed.ok && (await importCatalog(t.souk.store, parsed.catalog)).ok);
    list = json(await get(t, USERS.amina));
    assert.deepEqual(list, { data: [], pagination: null });
    // The trashed listing is still a favourite: toggling another one lists it.
    assert.deepEqual((await t.toggle(USERS.amina, { listing_id: LISTINGS.draft })).json(), [LISTINGS.bike, LISTINGS.table]);
  });

  it('pages through the list and answers past its end with an empty page that still counts it', async () => {
    const ids = [201, 202, 203, 204, 205];
    const doc = marketplace();
    doc.listings!.push(...ids.map((id) => ({ id, owner_id: USERS.youssef, title: `Listing ${id}` })));
    const t = await startTestSouk({}, doc);
    for (const id of ids) await t.toggle(USERS.amina, { listing_id: id });
    const page = async (query: string) => json(await get(t, USERS.amina, query));
    const idsOf = (reply: Json) => (reply.data as Json[]).map((i) => i.listing_id);
    const pagination = (count: number, current: number, perPage = 2) => ({
      total: 5,
      count,
      per_page: perPage,
      current_page: current,
      total_pages: Math.ceil(5 / perPage),
    });

    assert.deepEqual(idsOf(await page('')), [205, 204, 203, 202, 201]);
    assert.deepEqual(await page('?per_page=2').then((r) => [idsOf(r), r.pagination]), [[205, 204], pagination(2, 1)]);
    assert.deepEqual(await page('?per_page=2&page=2').then((r) => [idsOf(r), r.pagination]), [[203, 202], pagination(2, 2)]);
    assert.deepEqual(await page('?per_page=2&page=3').then((r) => [idsOf(r), r.pagination]), [[201], pagination(1, 3)]);
    assert.deepEqual(await page('?per_page=2&page=4'), { data: [], pagination: pagination(0, 4) });
    assert.deepEqual(await page(`?per_page=100&page=${Number.MAX_SAFE_INTEGER}`), {
      data: [],
      pagination: pagination(0, Number.MAX_SAFE_INTEGER, 100),
    });
    assert.deepEqual(idsOf(await page('?per_page=100&page=&extra=1')), [205, 204, 203, 202, 201]);
  });

  it('refuses a page or per_page that is not a positive integer, and per_page over 100, with the N2 messages', async () => {
    const t = await startTestSouk();
    const refusal = (message: string) => ({ status: 'error', error: 'BADREQUEST', code: '400', error_message: message });
    const cases: Array<[string, string]> = [
      ['?page=0', 'page must be a positive integer.'],
      ['?page=abc', 'page must be a positive integer.'],
      ['?page=-1', 'page must be a positive integer.'],
      ['?page=1.5', 'page must be a positive integer.'],
      ['?page=1&page=2', 'page must be a positive integer.'],
      [`?page=${2 ** 53}`, 'page must be a positive integer.'],
      ['?per_page=0', 'per_page must be a positive integer.'],
      ['?per_page=x', 'per_page must be a positive integer.'],
      ['?per_page=101', 'per_page must be between 1 and 100.'],
    ];
    for (const [query, message] of cases) {
      const res = await get(t, USERS.amina, query);
      assert.equal(res.statusCode, 400, query);
      assert.deepEqual(json(res), refusal(message), query);
    }
    assert.equal((await get(t, USERS.amina, '?per_page=100&page=007')).statusCode, 200);
  });

  it('needs a token: none is 401 MISSING_AUTHORIZATION_HEADER, a disabled user 403', async () => {
    const t = await startTestSouk();
    const none = await get(t, USERS.amina, '', { 'x-api-key': t.apiKey });
    assert.equal(none.statusCode, 401);
    assert.equal(json(none).error, 'MISSING_AUTHORIZATION_HEADER');
    assert.equal((await get(t, USERS.disabled)).statusCode, 403);
  });

  it('shows a listing imported before it had details with the defaults, dated when it was imported', async () => {
    const t = await startTestSouk({}, recordedCatalog('original'));
    await t.toggle(ALICE, { listing_id: 8 });
    await t.souk.store.db.deleteFrom('listing_details').where('listing_id', '=', 8).execute();
    const [item] = json(await get(t, ALICE)).data as Json[];
    assert.deepEqual(
      [item!.pricing_type, item!.max_price, item!.price_type, item!.tags, item!.view_count, item!.badges, item!.contact.hide_map],
      ['price', '0', '', false, 0, [], false],
    );
    assert.match(item!.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });
});

describe('GET my/favourites, classic replies (CHAT_REPLY_FORMAT=classic)', () => {
  const steps = recordedSteps('original-2x/02-favourites.txt');

  it('answers [016], [018] and [024] as 2.x did, plus created_at_gmt and store (the Fix)', async () => {
    const t = await startTestSouk({ CHAT_REPLY_FORMAT: 'classic' }, recordedCatalog('original-2x'));
    await replay(t, steps, (reply, recorded, id) => {
      for (const item of (reply.data as Json[]) ?? []) {
        const keys = Object.keys(item);
        assert.equal(keys[keys.indexOf('created_at') + 1], 'created_at_gmt', `[${id}] created_at_gmt follows created_at`);
        assert.equal(keys.at(-1), 'store', `[${id}] store comes last`);
        assert.equal(item.created_at_gmt, item.created_at, `[${id}] the site is on UTC`);
        assert.deepEqual(item.store, { id: 0, title: '' }, `[${id}] no store`);
        delete item.created_at_gmt;
        delete item.store;
      }
      assert.deepEqual(shapeOf(reply), shapeOf(recorded), `[${id}] shape`);
      assert.deepEqual(reply, recorded, `[${id}] values`);
    });
  });

  it("carries the listing's store, and its times in the site time zone with the offset", async () => {
    const doc = recordedCatalog('original-2x');
    doc.listings![0] = { ...doc.listings![0]!, store: { id: 12, title: 'Bob & Co' }, created_at: '2026-07-01 09:30:00+00:00' };
    const t = await startTestSouk({ CHAT_REPLY_FORMAT: 'classic', SITE_TIMEZONE: 'Europe/Paris' }, doc);
    await t.toggle(ALICE, { listing_id: doc.listings![0]!.id });
    const [item] = json(await get(t, ALICE)).data as Json[];
    assert.deepEqual(item!.store, { id: 12, title: 'Bob & Co' });
    assert.equal(item!.created_at, '2026-07-01 11:30:00');
    assert.equal(item!.created_at_gmt, '2026-07-01 09:30:00');
    assert.deepEqual(item!.date_created, { date: '2026-07-01 11:30:00.000000', timezone_type: 1, timezone: '+02:00' });
  });
});

describe('GET my/favourites, details from the import', () => {
  it('shows a range price, tags and the contact as imported (current)', async () => {
    const doc = recordedCatalog('original');
    const tag = { ...doc.listings![0]!.category![0]!, term_id: 40, name: 'Vintage', slug: 'vintage', taxonomy: 'rtcl_tag' };
    doc.listings![0] = {
      ...doc.listings![0]!,
      pricing_type: 'range',
      max_price: '450',
      price_units: ['hour'],
      price_unit: 'hour',
      tags: [tag],
      promotions: ['featured'],
      view_count: 7,
      contact: { phone: '+1 555', hide_map: true },
    };
    const t = await startTestSouk({}, doc);
    await t.toggle(ALICE, { listing_id: doc.listings![0]!.id });
    const [item] = json(await get(t, ALICE)).data as Json[];
    assert.deepEqual(
      [
        item!.pricing_type,
        item!.raw_max_price,
        item!.max_price,
        item!.price_units,
        item!.price_unit,
        item!.tags,
        item!.promotions,
        item!.view_count,
      ],
      ['range', '450', '450', ['hour'], 'hour', [tag], ['featured'], 7],
    );
    assert.deepEqual(item!.contact, {
      locations: [],
      latitude: '',
      longitude: '',
      hide_map: true,
      zipcode: '',
      address: '',
      phone: '+1 555',
      whatsapp_number: '',
      email: '',
      website: '',
      geo_address: '',
    });
  });

  it('refuses an import whose created_at names a day the calendar has not', () => {
    const doc = recordedCatalog('original');
    doc.listings![1] = { ...doc.listings![1]!, created_at: '2026-02-30T10:00:00Z' };
    assert.deepEqual(parseImportDocument(doc), { ok: false, path: 'listings[1].created_at', problem: 'not a date and time that exists' });
  });
});
