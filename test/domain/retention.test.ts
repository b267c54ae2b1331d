/**
 * The retention of inactive conversations (src/domain/retention.ts) on a real store, its clock
 * injected: in batches, one instance at a time (PostgreSQL's advisory lock), as a background job
 * that stops cleanly. Also what moderation leaves to the catalog import: a user the operator
 * disabled stays disabled, an erased one stays erased.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { parseImportDocument } from '../../src/cli/import-document.js';
import { importCatalog } from '../../src/domain/catalog.js';
import { startConversation } from '../../src/domain/chat/conversation.js';
import { sendMessage } from '../../src/domain/chat/message.js';
import { setUserDisabled } from '../../src/domain/moderation.js';
import { deleteInactiveConversations, RETENTION_BATCH, RetentionJob, type RetentionPass } from '../../src/domain/retention.js';
import { eraseUser, NO_SAFETY_RECORDS } from '../../src/domain/user-data.js';
import type { User } from '../../src/domain/model.js';
import type { Store } from '../../src/store/index.js';
import { LISTINGS, marketplace, USERS } from '../helpers/fixtures.js';
import { marketplaceStore } from '../helpers/marketplace-store.js';
import { duringRetention } from '../helpers/retention.js';
import { uncachedChat } from '../helpers/store.js';

const DAY = 86_400_000;
const LIMITS = { textMaxLength: 100, maxFiles: 2 };

async function converse(store: Store, userId: number, at: number): Promise<number> {
  const caller = (await store.repos.users.findById(userId)) as User;
  const started = await startConversation(
    uncachedChat(store),
    caller,
    { listingId: LISTINGS.bike, text: 'hi', files: [], tempId: null },
    LIMITS,
    at,
  );
  assert.ok(started.ok);
  return started.value.conversation.id;
}

it('deletes the conversations inactive for the given days with their messages, the others stay; a job stops cleanly', async (t) => {
  const store = await marketplaceStore(t);
  const now = 100 * DAY;
  const old = await converse(store, USERS.amina, now - 10 * DAY);
  const recent = await converse(store, USERS.sara, now - 2 * DAY);
  assert.deepEqual(await deleteInactiveConversations(store, 30, now), { deleted: 0, skipped: false });
  assert.deepEqual(await deleteInactiveConversations(store, 5, now), { deleted: 1, skipped: false });
  assert.equal(await store.repos.conversations.findById(old), undefined);
  assert.equal(await store.repos.messages.countOf(old, 0), 0);
  assert.ok(await store.repos.conversations.findById(recent));

  // The job: a pass at start, then none after stop().
  const passes: RetentionPass[] = [];
  const job = new RetentionJob({
    uow: store,
    days: 1,
    now: () => now,
    onPass: (p) => passes.push(p),
    onError: (err) => assert.fail(String(err)),
  });
  job.start();
  await job.stop();
  assert.deepEqual(passes, [{ deleted: 1, skipped: false }]);
  assert.equal(await store.repos.conversations.findById(recent), undefined);
  assert.ok(RETENTION_BATCH >= 100);
});

it('leaves the round to the instance already deleting (PostgreSQL)', async (t) => {
  const store = await marketplaceStore(t);
  if (store.dialect !== 'postgres') return t.skip('SQLite is one process: its one write lock serves');
  await converse(store, USERS.amina, 1 * DAY);
  // An instance holding the lock: this one skips, and deletes nothing.
  const inside = await store.transaction(async (repos) => {
    assert.equal(await repos.moderation!.deleteInactiveConversations(50 * DAY, 10), 1);
    return deleteInactiveConversations(store, 1, 100 * DAY);
  });
  assert.deepEqual(inside, { deleted: 0, skipped: true });
});

it('a message or a start while the retention deletes the conversation is refused or starts anew, never a failure (PostgreSQL)', async (t) => {
  const store = await marketplaceStore(t);
  if (store.dialect !== 'postgres') return t.skip('SQLite runs one write transaction at a time');
  /** Runs `write` while the retention's delete of the old conversation is done but not committed. */
  const whileDeleting = async <T>(write: () => Promise<T>): Promise<T> => {
    const { result, deleted } = await duringRetention(store, 50 * DAY, write);
    assert.equal(deleted, 1);
    return result;
  };
  const conId = await converse(store, USERS.amina, 1 * DAY);
  const input = { conId, listingId: null, text: 'still there?', files: [], tempId: null };
  // The send waited for the delete, then found no conversation to write in.
  assert.deepEqual(await whileDeleting(() => sendMessage(store, USERS.amina, input, LIMITS)), { ok: false, error: 'forbidden' });
  assert.equal(await store.repos.conversations.findById(conId), undefined);
  // A start on the listing waited for it too, then began a new conversation.
  const again = await converse(store, USERS.amina, 1 * DAY);
  const caller = (await store.repos.users.findById(USERS.amina)) as User;
  const started = await whileDeleting(() =>
    startConversation(uncachedChat(store), caller, { listingId: LISTINGS.bike, text: 'hello again', files: [], tempId: null }, LIMITS),
  );
  assert.ok(started.ok);
  assert.notEqual(started.value.conversation.id, again);
  assert.ok(await store.repos.conversations.findById(started.value.conversation.id));
});

it('an import keeps a disabled user disabled and an erased one erased', async (t) => {
  const store = await marketplaceStore(t);
  assert.deepEqual(await setUserDisabled(store, USERS.sara, true), { ok: true, value: true });
  assert.ok((await eraseUser(store, NO_SAFETY_RECORDS, USERS.amina)).ok);
  const parsed = parseImportDocument(marketplace());
  assert.ok(parsed.ok);
  assert.ok((await importCatalog(store, parsed.catalog)).ok);
  assert.equal((await store.repos.users.findById(USERS.sara))?.disabled, true);
  const amina = await store.repos.users.findById(USERS.amina);
  assert.deepEqual([amina?.name, amina?.email, amina?.disabled], ['Deleted user', '', true]);
  assert.equal((await store.accounts.findForSignIn('amina@example.com'))?.user.id, undefined);
  // Enabled, the import's word counts again.
  assert.deepEqual(await setUserDisabled(store, USERS.sara, false), { ok: true, value: true });
  assert.ok((await importCatalog(store, parsed.catalog)).ok);
  assert.equal((await store.repos.users.findById(USERS.sara))?.disabled, false);
});
