/**
 * The moderation use cases (src/domain/moderation.ts) on a real store, without HTTP: a disabled
 * user is neither sender nor recipient, an admin's removal empties a message in place and tells both
 * participants, and the export holds what the user sees.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { startConversation } from '../../src/domain/chat/conversation.js';
import { sendMessage } from '../../src/domain/chat/message.js';
import type { User } from '../../src/domain/model.js';
import { removeMessage, setUserDisabled } from '../../src/domain/moderation.js';
import { exportUserData, NO_SAFETY_RECORDS } from '../../src/domain/user-data.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { marketplaceStore } from '../helpers/marketplace-store.js';
import { uncachedChat } from '../helpers/store.js';

const LIMITS = { textMaxLength: 100, maxFiles: 2 };
const say = (conId: number, text: string) => ({ conId, listingId: null, text, files: [], tempId: null });

it('refuses messages to and from a disabled user, removes a message in place, and exports what the user sees', async (t) => {
  const store = await marketplaceStore(t);
  const amina = (await store.repos.users.findById(USERS.amina))!;
  const started = await startConversation(
    uncachedChat(store),
    amina,
    { listingId: LISTINGS.bike, text: 'hi', files: [], tempId: null },
    LIMITS,
  );
  assert.ok(started.ok);
  const conId = started.value.conversation.id;
  assert.ok((await sendMessage(store, USERS.youssef, say(conId, 'hello'), LIMITS)).ok);

  assert.deepEqual(await setUserDisabled(store, USERS.youssef, true), { ok: true, value: true });
  assert.deepEqual(await sendMessage(store, USERS.amina, say(conId, 'there?'), LIMITS), { ok: false, error: 'user_closed' });
  assert.deepEqual(await sendMessage(store, USERS.youssef, say(conId, 'me?'), LIMITS), { ok: false, error: 'user_closed' });
  // A start about the disabled owner's listing answers as a missing listing, even with a stale cached owner.
  const staleOwner = {
    uow: store,
    findUser: async (id: number, load: (id: number) => Promise<User | undefined>) => ({ ...(await load(id))!, disabled: false }),
  };
  const again = await startConversation(staleOwner, amina, { listingId: LISTINGS.bike, text: 'hi', files: [], tempId: null }, LIMITS);
  assert.deepEqual(again, { ok: false, error: 'listing_not_found' });
  assert.deepEqual(await setUserDisabled(store, 999, true), { ok: false, error: 'no_such_user' });
  assert.deepEqual(await setUserDisabled(store, USERS.youssef, false), { ok: true, value: true });
  assert.deepEqual(await setUserDisabled(store, USERS.youssef, false), { ok: true, value: false });

  const seqBefore = await Promise.all([USERS.amina, USERS.youssef].map((u) => store.eventLog!.lastSeq(u)));
  const removed = await removeMessage(store, started.value.message.id);
  assert.ok(removed.ok);
  assert.deepEqual([removed.value.text, removed.value.type, removed.value.attachments], ['', 'text', null]);
  for (const [i, userId] of [USERS.amina, USERS.youssef].entries()) {
    const [event] = await store.eventLog!.after(userId, seqBefore[i]!, 10);
    assert.equal(event?.type, 'message.update', `user ${userId} is told`);
    assert.equal(JSON.parse(event!.payload).message.id, started.value.message.id);
  }
  const page = await store.repos.messages.pageOf(conId, 0, 0, 10);
  assert.deepEqual(
    page.map((m) => m.text),
    ['hello', ''],
  );

  const exported = await exportUserData({ repos: store.repos, safety: NO_SAFETY_RECORDS }, USERS.youssef);
  assert.ok(exported);
  assert.deepEqual(exported.conversations[0]!.other_user, { id: USERS.amina, name: amina.name });
  assert.deepEqual(
    exported.conversations[0]!.messages.map((m) => [m.sender_id, m.text]),
    [
      [USERS.amina, ''],
      [USERS.youssef, 'hello'],
    ],
  );
  assert.equal(await exportUserData({ repos: store.repos, safety: NO_SAFETY_RECORDS }, 999), undefined);
});
