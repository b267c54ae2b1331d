import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, PATHS, type TestSouk } from '../helpers/souk.js';
import { image, LISTINGS, SITE_URL, term, USERS } from '../helpers/fixtures.js';

// The orders of the interface's tables (Resources: Conversation, Listing summary, Image, Category term,
// User summary, Message).
const KEYS = {
  conversation: [
    'con_id',
    'listing',
    'unread_count',
    'sender',
    'recipient',
    'listing_id',
    'sender_id',
    'recipient_id',
    'sender_delete',
    'recipient_delete',
    'last_message_id',
    'sender_review',
    'recipient_review',
    'invert_review',
    'created_at',
    'updated_at',
    'last_message',
    'last_message_created_at',
    'newMessage',
  ],
  listing: ['id', 'title', 'url', 'images', 'amount', 'raw_price', 'location', 'category'],
  image: ['ID', 'title', 'caption', 'url', 'alt', 'src', 'srcset', 'sizes', 'mime_type', 'src_w', 'src_h', 'srcset_sizes'],
  sizes: ['full', 'medium', 'thumbnail'],
  size: ['src', 'width', 'height'],
  term: ['term_id', 'name', 'slug', 'term_group', 'term_taxonomy_id', 'taxonomy', 'description', 'parent', 'count', 'filter'],
  user: ['id', 'name', 'email', 'phone', 'whatsapp', 'website', 'profile_picture'],
  message: ['message_id', 'con_id', 'source_id', 'message', 'meta', 'attachments', 'type', 'is_read', 'created_at', 'temp_id'],
};

const TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;

// What the fixture marketplace imported, written out by hand (D7, D8).
const BIKE = {
  id: 101,
  title: 'Road bike',
  url: `${SITE_URL}/listing/road-bike/`,
  images: [image(501, 'road-bike'), { ...image(502, 'road-bike-side'), srcset: 'a.jpg 300w' }],
  amount:
    '<div class="rtcl-price price-type-fixed"><span class="rtcl-price-amount amount"><bdi><span class="rtcl-price-currencySymbol">&#36;</span>1,200.00</bdi></span></div>',
  raw_price: '1200',
  location: [term(21, 'Casablanca', 'rtcl_location')],
  category: [term(11, 'Bikes', 'rtcl_category'), term(12, 'Sport', 'rtcl_category')],
};
const AMINA = {
  id: 1,
  name: 'Amina K.',
  email: 'Amina@Example.com ',
  phone: '+212 600',
  whatsapp: '',
  website: '',
  // md5("amina@example.com"): the email trimmed and lower-cased.
  profile_picture: 'https://secure.gravatar.com/avatar/c40d7ae2520a6522fbc8bd0f32751edf?s=96&d=mm&r=g',
};
const YOUSSEF = {
  id: 2,
  name: 'Youssef B.',
  email: 'youssef@example.com',
  phone: '',
  whatsapp: '',
  website: 'https://y.example',
  profile_picture: 'https://cdn.example/y.png',
};
const SARA = {
  id: 3,
  name: 'sara', // no display name: the login
  email: 'sara@example.com',
  phone: '',
  whatsapp: '',
  website: '',
  profile_picture: 'https://secure.gravatar.com/avatar/d0aab53eb63d94f445acc519f4f6102a?s=96&d=mm&r=g',
};

const bad = (error_message: string) => ({ status: 'error', error: 'BADREQUEST', code: '400', error_message });
const NOT_FOUND = bad('Listing not found.');
const TEXT_REQUIRED = bad('text is required: send a non-empty message or attach at least one file.');
const TEXT_NOT_STRING = bad('text is required and must be a string.');
const BAD_FILES = bad('files must be an array of at most 10 objects {url, name?, mime_type?, size?} with an http(s) url.');
const NO_PERMISSION = { code: 'FORBIDDEN', message: 'You are not permitted to access this conversation.' };

/** `YYYY-MM-DD HH:MM:SS` of an instant, shifted by offsetHours from UTC. */
const wallClock = (ms: number, offsetHours = 0) => new Date(ms + offsetHours * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');

/** Runs fn and returns its result with the wall clock before and after, to bracket the times it reports. */
async function bracketed<T>(fn: () => Promise<T>): Promise<{ value: T; before: number; after: number }> {
  const before = Date.now();
  const value = await fn();
  return { value, before, after: Date.now() };
}

function assertTimeWithin(value: unknown, before: number, after: number, offsetHours = 0): void {
  assert.equal(typeof value, 'string');
  assert.match(value as string, TIME);
  assert.ok(
    (value as string) >= wallClock(before, offsetHours) && (value as string) <= wallClock(after, offsetHours),
    `${value} is not between ${wallClock(before, offsetHours)} and ${wallClock(after, offsetHours)}`,
  );
}

async function count(t: TestSouk, table: 'conversations' | 'messages' | 'favourites'): Promise<number> {
  const rows = await t.souk.store.db.selectFrom(table).select('id').execute();
  return rows.length;
}

async function assertNothingStored(t: TestSouk): Promise<void> {
  assert.equal(await count(t, 'conversations'), 0);
  assert.equal(await count(t, 'messages'), 0);
}

type Reply = Record<string, any>;

async function startOk(t: TestSouk, userId: number, body: unknown): Promise<Reply> {
  const res = await t.start(userId, body);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

// The refusals change nothing, so they share a Souk, and each checks that nothing is stored so
// far. Started here, not in a test: startTestSouk closes its Souk after the test that started it.
const refusing = startTestSouk();

describe('POST /my/chat/conversation', () => {
  it('starts a conversation and replies with every field of the interface, in its order and types', async () => {
    const t = await startTestSouk();
    const {
      value: res,
      before,
      after,
    } = await bracketed(() => t.start(USERS.sara, { listing_id: LISTINGS.bike, text: 'Is it still available?' }));
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^application\/json/);
    const reply = res.json();

    // Keys and their order, at every level.
    assert.deepEqual(Object.keys(reply), KEYS.conversation);
    assert.deepEqual(Object.keys(reply.listing), KEYS.listing);
    assert.equal(reply.listing.images.length, 2);
    for (const img of reply.listing.images) {
      assert.deepEqual(Object.keys(img), KEYS.image);
      assert.deepEqual(Object.keys(img.sizes), KEYS.sizes);
      for (const size of Object.values(img.sizes)) assert.deepEqual(Object.keys(size as object), KEYS.size);
    }
    for (const termObject of [...reply.listing.category, ...reply.listing.location]) assert.deepEqual(Object.keys(termObject), KEYS.term);
    assert.deepEqual(Object.keys(reply.sender), KEYS.user);
    assert.deepEqual(Object.keys(reply.recipient), KEYS.user);
    assert.deepEqual(Object.keys(reply.newMessage), KEYS.message);

    // Types: integers are JSON numbers, flags are booleans, times have the interface's format.
    for (const key of ['con_id', 'unread_count', 'listing_id', 'sender_id', 'recipient_id', 'last_message_id']) {
      assert.ok(Number.isInteger(reply[key]), `${key} is an integer`);
    }
    for (const key of ['sender_delete', 'recipient_delete', 'sender_review', 'recipient_review', 'invert_review']) {
      assert.equal(typeof reply[key], 'boolean', `${key} is a boolean`);
    }
    for (const key of ['message_id', 'con_id', 'source_id', 'is_read'])
      assert.ok(Number.isInteger(reply.newMessage[key]), `newMessage.${key}`);
    for (const time of [reply.created_at, reply.updated_at, reply.last_message_created_at, reply.newMessage.created_at]) {
      assertTimeWithin(time, before, after);
    }

    // The stored rows are the ones the reply describes.
    const conversations = await t.souk.store.db.selectFrom('conversations').selectAll().execute();
    const messages = await t.souk.store.db.selectFrom('messages').selectAll().execute();
    assert.equal(conversations.length, 1);
    assert.equal(messages.length, 1);
    const conId = conversations[0]!.id;
    const messageId = messages[0]!.id;

    const at = reply.created_at;
    assert.deepEqual(reply, {
      con_id: conId,
      listing: BIKE,
      unread_count: 0,
      sender: SARA,
      recipient: YOUSSEF,
      listing_id: 101,
      sender_id: 3,
      recipient_id: 2,
      sender_delete: false,
      recipient_delete: false,
      last_message_id: messageId,
      sender_review: false,
      recipient_review: false,
      invert_review: false,
      created_at: at,
      updated_at: at,
      last_message: 'Is it still available?',
      last_message_created_at: at,
      newMessage: {
        message_id: messageId,
        con_id: conId,
        source_id: 3,
        message: 'Is it still available?',
        meta: null,
        attachments: null,
        type: 'text',
        is_read: 0,
        created_at: at,
        temp_id: '',
      },
    });
  });

  it('shows the caller as sender with a Gravatar address from the trimmed lower-cased email (D8)', async () => {
    const t = await startTestSouk();
    const reply = await startOk(t, USERS.amina, { listing_id: LISTINGS.bike, text: 'hello' });
    assert.deepEqual(reply.sender, AMINA);
    assert.deepEqual(reply.recipient, YOUSSEF);
    assert.deepEqual([reply.sender_id, reply.recipient_id, reply.newMessage.source_id], [1, 2, 1]);
  });

  it('summarises draft and expired listings too, with "" for a missing price (D6, D7)', async () => {
    const t = await startTestSouk();
    const draft = await startOk(t, USERS.amina, { listing_id: LISTINGS.draft, text: 'lamp?' });
    assert.deepEqual(draft.listing, {
      id: 102,
      title: 'Draft lamp',
      url: `${SITE_URL}/listing/draft-lamp/`,
      images: [],
      amount:
        '<div class="rtcl-price price-type-fixed"><span class="rtcl-price-amount amount"><bdi><span class="rtcl-price-currencySymbol">&#36;</span>15.50</bdi></span></div>',
      raw_price: '15.5',
      location: [],
      category: [],
    });
    assert.deepEqual(draft.recipient, YOUSSEF);
    const expired = await startOk(t, USERS.amina, { listing_id: LISTINGS.table, text: 'table?' });
    assert.deepEqual(expired.listing, {
      id: 103,
      title: 'Oak table',
      url: `${SITE_URL}/listing/oak-table/`,
      images: [],
      amount: '',
      raw_price: '',
      location: [],
      category: [],
    });
    assert.deepEqual(expired.recipient, SARA);
  });

  it('appends a second start to the open conversation', async () => {
    const t = await startTestSouk();
    const first = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'first' });
    // Age the conversation so that its creation time is told apart from the new message's.
    const created = Date.UTC(2020, 0, 2, 3, 4, 5);
    await t.souk.store.db.updateTable('conversations').set({ created_at: created, updated_at: created }).execute();

    const { value: res, before, after } = await bracketed(() => t.start(USERS.sara, { listing_id: LISTINGS.bike, text: 'second' }));
    assert.equal(res.statusCode, 200);
    const second = res.json();
    assert.equal(second.con_id, first.con_id);
    assert.notEqual(second.newMessage.message_id, first.newMessage.message_id);
    assert.equal(second.created_at, '2020-01-02 03:04:05');
    assertTimeWithin(second.updated_at, before, after);
    assert.deepEqual(
      {
        last_message_id: second.last_message_id,
        last_message: second.last_message,
        last_message_created_at: second.last_message_created_at,
        unread_count: second.unread_count,
      },
      {
        last_message_id: second.newMessage.message_id,
        last_message: 'second',
        last_message_created_at: second.newMessage.created_at,
        unread_count: 0,
      },
    );
    assert.deepEqual(second.newMessage, {
      ...first.newMessage,
      message_id: second.newMessage.message_id,
      message: 'second',
      created_at: second.newMessage.created_at,
    });
    assert.equal(await count(t, 'conversations'), 1);
    assert.equal(await count(t, 'messages'), 2);
    const row = await t.souk.store.db.selectFrom('conversations').selectAll().executeTakeFirstOrThrow();
    assert.equal(row.last_message_id, second.newMessage.message_id);
  });

  it('counts unread messages not sent by the caller', async () => {
    const t = await startTestSouk();
    const first = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'hi' });
    // Two replies from the owner, one of them already read.
    const reply = {
      con_id: first.con_id,
      source_id: USERS.youssef,
      message: 'yes',
      type: 'text',
      attachments: null,
      meta: null,
      temp_id: null,
      created_at: Date.now(),
    };
    await t.souk.store.db
      .insertInto('messages')
      .values([
        { ...reply, is_read: 0 },
        { ...reply, is_read: 1 },
      ])
      .execute();
    const second = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'great' });
    assert.equal(second.con_id, first.con_id);
    assert.equal(second.unread_count, 1);
  });

  for (const flag of ['sender_delete', 'recipient_delete'] as const) {
    it(`starts a new conversation once ${flag} is set on the open one`, async () => {
      const t = await startTestSouk();
      const first = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'one' });
      await t.souk.store.db
        .updateTable('conversations')
        .set({ [flag]: 1 })
        .where('id', '=', first.con_id)
        .execute();
      const second = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'two' });
      assert.notEqual(second.con_id, first.con_id);
      assert.equal(second.newMessage.con_id, second.con_id);
      assert.equal(second.sender_delete, false);
      assert.equal(second.recipient_delete, false);
      assert.equal(second.last_message, 'two');
      assert.equal(await count(t, 'conversations'), 2);
      const third = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'three' });
      assert.equal(third.con_id, second.con_id);
    });
  }

  it('gives a different caller a different conversation, and the same caller one per listing', async () => {
    const t = await startTestSouk();
    const sara = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'hi' });
    const amina = await startOk(t, USERS.amina, { listing_id: LISTINGS.bike, text: 'hi' });
    const aminaLamp = await startOk(t, USERS.amina, { listing_id: LISTINGS.draft, text: 'hi' });
    assert.equal(new Set([sara.con_id, amina.con_id, aminaLamp.con_id]).size, 3);
    assert.deepEqual(amina.sender, AMINA);
    assert.equal(amina.unread_count, 0);
    assert.equal(await count(t, 'conversations'), 3);
  });

  it("refuses a start about the caller's own listing with 403 shape A", async () => {
    const t = await refusing;
    const res = await t.start(USERS.amina, { listing_id: LISTINGS.aminasOwn, text: 'hi' });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), NO_PERMISSION);
    await assertNothingStored(t);
  });

  for (const [label, listingId] of [
    ['missing', 999],
    ['in the trash', LISTINGS.trashed],
  ] as const) {
    it(`answers 400 "Listing not found." for a listing ${label}`, async () => {
      const t = await refusing;
      const res = await t.start(USERS.amina, { listing_id: listingId, text: 'hi' });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), NOT_FOUND);
      await assertNothingStored(t);
    });
  }

  it('accepts listing_id as a string of digits and ignores unknown fields such as con_id (D2, D3)', async () => {
    const t = await startTestSouk();
    const reply = await startOk(t, USERS.sara, { listing_id: '101', text: 'hi', con_id: 0, extra: { a: 1 } });
    assert.equal(reply.listing_id, 101);
  });

  it('answers 400 with the listing_id message when listing_id is invalid (D3)', async () => {
    const t = await refusing;
    for (const listingId of [undefined, null, 0, -1, 1.5, '12abc', true, [101]]) {
      const res = await t.start(USERS.sara, { listing_id: listingId, text: 'hi' });
      assert.equal(res.statusCode, 400, `listing_id ${JSON.stringify(listingId)}`);
      assert.deepEqual(res.json(), bad('listing_id is required and must be a positive integer.'));
    }
    await assertNothingStored(t);
  });

  describe('temp_id', () => {
    for (const [label, tempId, echoed] of [
      ['an integer', 7, '7'],
      ['a numeric string', '42', '42'],
      ['a negative integer', -3, '-3'],
    ] as const) {
      it(`echoes ${label} as a string`, async () => {
        const t = await startTestSouk();
        const reply = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'hi', temp_id: tempId });
        assert.equal(reply.newMessage.temp_id, echoed);
      });
    }

    it('echoes "" when temp_id is absent, null or ""', async () => {
      const t = await startTestSouk();
      for (const body of [{}, { temp_id: null }, { temp_id: '' }]) {
        const reply = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'hi', ...body });
        assert.equal(reply.newMessage.temp_id, '');
      }
      assert.equal(await count(t, 'messages'), 3); // no temp_id: no deduplication
    });

    it('returns the stored message for a retry with the same temp_id and stores nothing new', async () => {
      const t = await startTestSouk();
      const first = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'hello', temp_id: 7 });
      const retry = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'hello', temp_id: 7 });
      assert.deepEqual(retry, first);
      // The same id sent as a numeric string is the same temp_id.
      const asString = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'hello', temp_id: '7' });
      assert.deepEqual(asString.newMessage, first.newMessage);
      assert.equal(await count(t, 'messages'), 1);
      assert.equal(await count(t, 'conversations'), 1);
    });

    it('finds the stored message for a retry after the owner has read it', async () => {
      const t = await startTestSouk();
      const first = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'hello', temp_id: 9 });
      await t.souk.store.db.updateTable('messages').set({ is_read: 1 }).execute();
      const retry = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'hello', temp_id: 9 });
      assert.deepEqual(retry.newMessage, { ...first.newMessage, is_read: 1 });
      assert.equal(await count(t, 'messages'), 1);
    });

    it('keeps last_message on the latest message when an older message is retried', async () => {
      const t = await startTestSouk();
      const one = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'one', temp_id: 1 });
      const two = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'two', temp_id: 2 });
      const retry = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'one', temp_id: 1 });
      assert.deepEqual(retry.newMessage, one.newMessage);
      assert.equal(retry.last_message_id, two.newMessage.message_id);
      assert.equal(retry.last_message, 'two');
      assert.equal(retry.last_message_created_at, two.newMessage.created_at);
      assert.equal(await count(t, 'messages'), 2);
    });

    it('treats the same temp_id from another caller or in another conversation as a new message', async () => {
      const t = await startTestSouk();
      const sara = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'a', temp_id: 5 });
      const amina = await startOk(t, USERS.amina, { listing_id: LISTINGS.bike, text: 'b', temp_id: 5 });
      const saraLamp = await startOk(t, USERS.sara, { listing_id: LISTINGS.draft, text: 'c', temp_id: 5 });
      const ids = [sara, amina, saraLamp].map((r) => r.newMessage.message_id);
      assert.equal(new Set(ids).size, 3);
      assert.deepEqual(
        [sara, amina, saraLamp].map((r) => [r.newMessage.message, r.newMessage.temp_id]),
        [
          ['a', '5'],
          ['b', '5'],
          ['c', '5'],
        ],
      );
      assert.equal(await count(t, 'messages'), 3);
    });

    it('treats a temp_id reused after the conversation was deleted as a new message', async () => {
      const t = await startTestSouk();
      const first = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'a', temp_id: 5 });
      await t.souk.store.db.updateTable('conversations').set({ sender_delete: 1 }).execute();
      const again = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'a', temp_id: 5 });
      assert.notEqual(again.con_id, first.con_id);
      assert.notEqual(again.newMessage.message_id, first.newMessage.message_id);
      assert.equal(await count(t, 'messages'), 2);
    });

    for (const tempId of [1.5, 'abc', '1e3', true, {}, [1], 1e300]) {
      it(`refuses temp_id ${JSON.stringify(tempId)} with 400`, async () => {
        const t = await refusing;
        const res = await t.start(USERS.sara, { listing_id: LISTINGS.bike, text: 'hi', temp_id: tempId });
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), bad('temp_id must be an integer or a string of digits.'));
        await assertNothingStored(t);
      });
    }
  });

  describe('files', () => {
    const FILES = [
      { url: 'https://cdn.example/a.jpg', name: 'a.jpg', mime_type: 'image/jpeg', size: 1234 },
      { url: 'http://files.example/doc.pdf?x=1' },
    ];

    for (const [label, text, type] of [
      ['no text', '', 'attachment'],
      ['whitespace-only text', ' \n\t ', 'attachment'],
      ['text', 'see the photos', 'text'],
    ] as const) {
      it(`stores files as attachments, type "${type}" with ${label}`, async () => {
        const t = await startTestSouk();
        const reply = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text, files: FILES });
        assert.deepEqual(reply.newMessage, {
          message_id: reply.newMessage.message_id,
          con_id: reply.con_id,
          source_id: 3,
          message: text,
          meta: null,
          attachments: FILES,
          type,
          is_read: 0,
          created_at: reply.newMessage.created_at,
          temp_id: '',
        });
        assert.equal(reply.last_message, text);
        const row = await t.souk.store.db.selectFrom('messages').selectAll().executeTakeFirstOrThrow();
        assert.deepEqual(JSON.parse(row.attachments!), FILES);
        assert.equal(row.message, text);
        assert.equal(row.type, type);
      });
    }

    it('accepts ten files and an empty files array with text', async () => {
      const t = await startTestSouk();
      const ten = Array.from({ length: 10 }, (_, i) => ({ url: `https://cdn.example/${i}.png` }));
      const reply = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: '', files: ten });
      assert.deepEqual(reply.newMessage.attachments, ten);
      const none = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: 'x', files: [] });
      assert.equal(none.newMessage.attachments, null);
      assert.equal(none.newMessage.type, 'text');
    });

    for (const [label, body, expected] of [
      ['empty text and no files', { text: '' }, TEXT_REQUIRED],
      ['whitespace text and no files', { text: '  \n\t' }, TEXT_REQUIRED],
      ['empty text and an empty files array', { text: '', files: [] }, TEXT_REQUIRED],
      ['more than 10 files', { text: 'x', files: Array.from({ length: 11 }, () => ({ url: 'https://cdn.example/a.png' })) }, BAD_FILES],
      ['a file without url', { text: 'x', files: [{ name: 'a.png' }] }, BAD_FILES],
      ['a file with an empty url', { text: 'x', files: [{ url: '' }] }, BAD_FILES],
      ['an ftp: url', { text: 'x', files: [{ url: 'ftp://files.example/a.png' }] }, BAD_FILES],
      ['a javascript: url', { text: 'x', files: [{ url: 'javascript:alert(1)' }] }, BAD_FILES],
      ['a relative url', { text: 'x', files: [{ url: '/uploads/a.png' }] }, BAD_FILES],
      ['a file that is a string', { text: 'x', files: ['https://cdn.example/a.png'] }, BAD_FILES],
      ['a file with a negative size', { text: 'x', files: [{ url: 'https://cdn.example/a.png', size: -1 }] }, BAD_FILES],
      ['files as an object', { text: 'x', files: { url: 'https://cdn.example/a.png' } }, BAD_FILES],
      ['files as a string', { text: 'x', files: 'https://cdn.example/a.png' }, BAD_FILES],
      ['files null', { text: 'x', files: null }, BAD_FILES],
      ['a missing text', {}, TEXT_NOT_STRING],
      ['a null text', { text: null }, TEXT_NOT_STRING],
      ['a numeric text', { text: 12 }, TEXT_NOT_STRING],
      ['a missing text with files', { files: [{ url: 'https://cdn.example/a.png' }] }, TEXT_NOT_STRING],
    ] as const) {
      it(`answers 400 and stores nothing for ${label}`, async () => {
        const t = await refusing;
        const res = await t.start(USERS.sara, { listing_id: LISTINGS.bike, ...body });
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), expected);
        await assertNothingStored(t);
      });
    }
  });

  describe('text', () => {
    for (const [label, text] of [
      ['5000 ASCII characters', 'a'.repeat(5000)],
      ['5000 emoji (one character each)', '😀'.repeat(5000)],
      ['4999 characters and one emoji (5001 UTF-16 units)', 'a'.repeat(4999) + '🚲'],
    ]) {
      it(`accepts and stores verbatim ${label}`, async () => {
        const t = await startTestSouk();
        const reply = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text });
        assert.equal(reply.newMessage.message, text);
        assert.equal(reply.last_message, text);
        const row = await t.souk.store.db.selectFrom('messages').select('message').executeTakeFirstOrThrow();
        assert.equal(row.message, text);
      });
    }

    for (const [label, text] of [
      ['5001 ASCII characters', 'a'.repeat(5001)],
      ['5001 emoji', '😀'.repeat(5001)],
      ['5000 characters and one emoji', 'a'.repeat(5000) + '🚲'],
    ]) {
      it(`refuses ${label} with 400 and stores nothing`, async () => {
        const t = await refusing;
        const res = await t.start(USERS.sara, { listing_id: LISTINGS.bike, text });
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), bad('text must be at most 5000 characters.'));
        await assertNothingStored(t);
      });
    }

    it('stores HTML, unicode and control characters verbatim (readers escape)', async () => {
      const t = await startTestSouk();
      const text = '<script>alert("x")</script> &amp; \' " \\ é 中文 👩‍👩‍👧 \u202e\u0001\u0007\u001f\u007f\t\r\n end ';
      const reply = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text });
      assert.equal(reply.newMessage.message, text);
      assert.equal(reply.last_message, text);
      const row = await t.souk.store.db.selectFrom('messages').select('message').executeTakeFirstOrThrow();
      assert.equal(row.message, text);
    });

    it('refuses text holding U+0000 with 400 on every database, storing nothing', async () => {
      const t = await refusing;
      for (const text of ['\u0000', 'a\u0000b']) {
        const res = await t.start(USERS.sara, { listing_id: LISTINGS.bike, text });
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), bad('text must not contain the NUL character (U+0000).'));
      }
      await assertNothingStored(t);
    });

    it('honours TEXT_MAX_LENGTH', async () => {
      const t = await startTestSouk({ TEXT_MAX_LENGTH: '10' });
      const ok = await startOk(t, USERS.sara, { listing_id: LISTINGS.bike, text: '0123456789' });
      assert.equal(ok.newMessage.message, '0123456789');
      const res = await t.start(USERS.sara, { listing_id: LISTINGS.bike, text: '0123456789A' });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), bad('text must be at most 10 characters.'));
      assert.equal(await count(t, 'messages'), 1);
    });
  });

  it('reports times in SITE_TIMEZONE (Asia/Tokyo is UTC+9)', async () => {
    const t = await startTestSouk({ SITE_TIMEZONE: 'Asia/Tokyo' });
    const { value: res, before, after } = await bracketed(() => t.start(USERS.sara, { listing_id: LISTINGS.bike, text: 'hi' }));
    const reply = res.json();
    for (const time of [reply.created_at, reply.updated_at, reply.last_message_created_at, reply.newMessage.created_at]) {
      assertTimeWithin(time, before, after, 9);
    }
    // The stored instant is UTC epoch milliseconds; only the presentation moves.
    const row = await t.souk.store.db.selectFrom('messages').select('created_at').executeTakeFirstOrThrow();
    assert.equal(reply.newMessage.created_at, wallClock(row.created_at, 9));
  });

  it('yields one conversation for 20 concurrent starts by one caller, over a real socket', async () => {
    const t = await startTestSouk();
    const base = await t.listen();
    const headers = { ...t.auth(USERS.sara), 'content-type': 'application/json' };
    const send = (i: number) =>
      fetch(base + PATHS.start, { method: 'POST', headers, body: JSON.stringify({ listing_id: LISTINGS.bike, text: `message ${i}` }) });
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => send(i)));
    assert.deepEqual(
      replies.map((r) => r.status),
      Array(20).fill(200),
    );
    const bodies = (await Promise.all(replies.map((r) => r.json()))) as Reply[];
    const conIds = new Set(bodies.map((b) => b.con_id));
    assert.equal(conIds.size, 1);
    const messageIds = bodies.map((b) => b.newMessage.message_id);
    assert.equal(new Set(messageIds).size, 20);
    assert.deepEqual(bodies.map((b) => b.newMessage.message).sort(), Array.from({ length: 20 }, (_, i) => `message ${i}`).sort());
    const conversations = await t.souk.store.db.selectFrom('conversations').selectAll().execute();
    assert.equal(conversations.length, 1);
    assert.equal(conversations[0]!.id, [...conIds][0]);
    const messages = await t.souk.store.db.selectFrom('messages').select(['id', 'con_id']).execute();
    assert.equal(messages.length, 20);
    assert.deepEqual(
      messages.map((m) => m.id).sort((a, b) => a - b),
      [...messageIds].sort((a, b) => a - b),
    );
    assert.ok(messages.every((m) => m.con_id === conversations[0]!.id));
    // The conversation points at the last message stored.
    assert.equal(conversations[0]!.last_message_id, Math.max(...messageIds));
  });
});
