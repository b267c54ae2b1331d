/** The start-a-conversation use case (src/domain/chat/conversation.ts) on a real store, without HTTP. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { StartConversationInput } from '../../../src/domain/chat/common.js';
import { startConversation } from '../../../src/domain/chat/conversation.js';
import type { Attachment, User } from '../../../src/domain/model.js';
import type { Store } from '../../../src/store/index.js';
import { LISTINGS, USERS } from '../../helpers/fixtures.js';
import { marketplaceStore } from '../../helpers/marketplace-store.js';
import { uncachedChat } from '../../helpers/store.js';

const LIMITS = { textMaxLength: 20, maxFiles: 2 };

async function user(store: Store, id: number): Promise<User> {
  const found = await store.repos.users.findById(id);
  assert.ok(found);
  return found;
}

const say = (text: string, more: Partial<StartConversationInput> = {}): StartConversationInput => ({
  listingId: LISTINGS.bike,
  text,
  files: [],
  tempId: null,
  ...more,
});

it('creates a conversation with the first message, then adds to the same one', async (t) => {
  const store = await marketplaceStore(t);
  const amina = await user(store, USERS.amina);
  const first = await startConversation(uncachedChat(store), amina, say('hi'), LIMITS, 1_000_000);
  assert.ok(first.ok);
  const { conversation, recipient, message, lastMessage, unreadCount } = first.value;
  assert.deepEqual([conversation.listingId, conversation.senderId, conversation.recipientId], [LISTINGS.bike, USERS.amina, USERS.youssef]);
  assert.equal(recipient.id, USERS.youssef);
  assert.deepEqual(
    [message.text, message.type, message.sourceId, message.createdAt, message.isRead],
    ['hi', 'text', USERS.amina, 1_000_000, false],
  );
  assert.equal(lastMessage.id, message.id);
  assert.equal(unreadCount, 0);

  const second = await startConversation(uncachedChat(store), amina, say('hello?'), LIMITS, 2_000_000);
  assert.ok(second.ok);
  assert.equal(second.value.conversation.id, conversation.id);
  assert.equal(second.value.conversation.lastMessageId, second.value.message.id);
  assert.equal(second.value.conversation.updatedAt, 2_000_000);
  assert.equal(second.value.unreadCount, 0, 'the caller sent both: nothing for them to read');
});

it('counts what the other party sent and the caller has not read', async (t) => {
  const store = await marketplaceStore(t);
  const amina = await user(store, USERS.amina);
  const started = await startConversation(uncachedChat(store), amina, say('hi'), LIMITS);
  assert.ok(started.ok);
  const conId = started.value.conversation.id;
  for (const text of ['yes?', 'still for sale']) {
    await store.transaction((repos) =>
      repos.messages.append({ conId, sourceId: USERS.youssef, text, type: 'text', attachments: null, tempId: null, createdAt: Date.now() }),
    );
  }
  const again = await startConversation(uncachedChat(store), amina, say('great'), LIMITS);
  assert.ok(again.ok);
  assert.equal(again.value.unreadCount, 2);
});

it('a retry with the same temp id stores nothing new and answers with the stored message', async (t) => {
  const store = await marketplaceStore(t);
  const amina = await user(store, USERS.amina);
  assert.ok((await startConversation(uncachedChat(store), amina, say('hi'), LIMITS)).ok);
  const sent = await startConversation(uncachedChat(store), amina, say('offer 1000', { tempId: 'abc' }), LIMITS);
  const retried = await startConversation(uncachedChat(store), amina, say('offer 1000', { tempId: 'abc' }), LIMITS);
  assert.ok(sent.ok && retried.ok);
  assert.equal(retried.value.message.id, sent.value.message.id);
  assert.equal(retried.value.lastMessage.id, sent.value.message.id);
});

it('refuses bad input before touching the database, and listings it cannot message about', async (t) => {
  const store = await marketplaceStore(t);
  const amina = await user(store, USERS.amina);
  const file: Attachment = { url: 'https://souk.example/a.jpg' };
  const cases: [StartConversationInput, string][] = [
    [say('   '), 'text_required'],
    [say('x'.repeat(21)), 'text_too_long'],
    [say('a\u0000b'), 'text_has_nul'],
    [say('a\ud800b'), 'text_has_lone_surrogate'],
    [say('files', { files: [file, file, file] }), 'too_many_files'],
    [say('hi', { listingId: 999_999 }), 'listing_not_found'],
    [say('hi', { listingId: LISTINGS.trashed }), 'listing_not_found'],
    [say('hi', { listingId: LISTINGS.aminasOwn }), 'own_listing'],
  ];
  for (const [input, error] of cases)
    assert.deepEqual(await startConversation(uncachedChat(store), amina, input, LIMITS), { ok: false, error }, error);
  assert.equal(await store.repos.conversations.findOpen(LISTINGS.bike, USERS.amina, USERS.youssef), undefined);
});

it('counts characters as code points: 20 emoji fit a limit of 20', async (t) => {
  const store = await marketplaceStore(t);
  const amina = await user(store, USERS.amina);
  assert.equal((await startConversation(uncachedChat(store), amina, say('😀'.repeat(20)), LIMITS)).ok, true);
});

it("one buyer's concurrent starts about one listing share one conversation", async (t) => {
  const store = await marketplaceStore(t);
  const sara = await user(store, USERS.sara);
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) => startConversation(uncachedChat(store), sara, say(`hi ${i}`), LIMITS)),
  );
  const ids = new Set(results.map((r) => (r.ok ? r.value.conversation.id : -1)));
  assert.equal(ids.size, 1);
  assert.ok(!ids.has(-1));
});
