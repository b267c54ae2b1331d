/**
 * A disabled user is neither a sender nor a recipient (issue 17, L3): a start about a listing whose
 * owner is disabled is answered exactly as one about a missing listing, stores nothing, and the
 * owner's contact data never leaves. Over a real socket, on SQLite or PostgreSQL (TEST_DATABASE_URL).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseImportDocument } from '../../src/cli/import-document.js';
import { importCatalog } from '../../src/domain/catalog.js';
import { marketplace, USERS } from '../helpers/fixtures.js';
import { PATHS, startTestSouk, type TestSouk } from '../helpers/souk.js';

const NOT_FOUND = { status: 'error', error: 'BADREQUEST', code: '400', error_message: 'Listing not found.' };
const GHOSTS_LAMP = 106;
const GHOST = { email: 'ghost@example.com', phone: '+212 699 000' };

/** The fixture marketplace plus a listing of the disabled user, who has a phone number. */
function withGhostsListing(ghostDisabled: boolean) {
  const doc = marketplace();
  return {
    users: (doc.users ?? []).map((u) => (u.id === USERS.disabled ? { ...u, ...GHOST, disabled: ghostDisabled } : u)),
    listings: [
      ...(doc.listings ?? []),
      { id: GHOSTS_LAMP, owner_id: USERS.disabled, title: 'Brass lamp', slug: 'brass-lamp', price: '40' },
    ],
  };
}

async function reimport(t: TestSouk, document: unknown): Promise<void> {
  const parsed = parseImportDocument(document);
  assert.ok(parsed.ok);
  assert.ok((await importCatalog(t.souk.store, parsed.catalog)).ok);
  // What the next settings poll does: the new catalog version drops the cached users.
  await t.souk.settings.refresh();
}

interface Answer {
  status: number;
  contentType: string | null;
  body: string;
}

async function start(base: string, t: TestSouk, userId: number, listingId: number): Promise<Answer> {
  const res = await fetch(`${base}${PATHS.start}`, {
    method: 'POST',
    headers: { ...t.auth(userId), 'content-type': 'application/json' },
    body: JSON.stringify({ listing_id: listingId, text: 'Is it still available?' }),
  });
  return { status: res.status, contentType: res.headers.get('content-type'), body: await res.text() };
}

async function stored(t: TestSouk): Promise<{ conversations: number; messages: number }> {
  const conversations = await t.souk.store.db.selectFrom('conversations').select('id').execute();
  const messages = await t.souk.store.db.selectFrom('messages').select('id').execute();
  return { conversations: conversations.length, messages: messages.length };
}

function assertNoContactData(answer: Answer): void {
  for (const value of Object.values(GHOST)) assert.ok(!answer.body.includes(value), answer.body);
}

describe('a disabled listing owner', () => {
  it('is not a recipient: a start about their listing is answered as a missing listing, storing nothing', async () => {
    const t = await startTestSouk({}, withGhostsListing(true));
    const base = await t.listen();
    const missing = await start(base, t, USERS.amina, 999);
    const ghosts = await start(base, t, USERS.amina, GHOSTS_LAMP);
    assert.deepEqual(JSON.parse(ghosts.body), NOT_FOUND);
    assert.deepEqual(ghosts, missing);
    assertNoContactData(ghosts);
    assert.deepEqual(await stored(t), { conversations: 0, messages: 0 });
  });

  it('disabled after a conversation began: the next start is answered as a missing listing and adds nothing', async () => {
    const t = await startTestSouk({}, withGhostsListing(false));
    const base = await t.listen();
    const first = await start(base, t, USERS.amina, GHOSTS_LAMP);
    assert.equal(first.status, 200, first.body);
    assert.equal(JSON.parse(first.body).recipient.email, GHOST.email);

    await reimport(t, withGhostsListing(true));
    const again = await start(base, t, USERS.amina, GHOSTS_LAMP);
    assert.deepEqual(again, await start(base, t, USERS.amina, 999));
    assertNoContactData(again);
    assert.deepEqual(await stored(t), { conversations: 1, messages: 1 });

    // Enabled again, they are a recipient again, in the same conversation.
    await reimport(t, withGhostsListing(false));
    const back = await start(base, t, USERS.amina, GHOSTS_LAMP);
    assert.equal(back.status, 200, back.body);
    assert.equal(JSON.parse(back.body).con_id, JSON.parse(first.body).con_id);
  });
});
