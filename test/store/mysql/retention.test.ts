/**
 * The retention of inactive conversations on a WordPress site's tables (MariaDB), racing the chat:
 * a write to a conversation either happens before the retention's delete, and the conversation is
 * no longer inactive and stays with every message, or after it, and finds no conversation (a send
 * is refused, a start begins a new one). The plugin's tables have no foreign key: a message stored
 * in a conversation the retention deleted would be kept, and never seen again.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startConversation } from '../../../src/domain/chat/conversation.js';
import { newMessage } from '../../../src/domain/chat/common.js';
import { sendMessage } from '../../../src/domain/chat/message.js';
import { deleteInactiveConversations } from '../../../src/domain/retention.js';
import type { User } from '../../../src/domain/model.js';
import type { Store } from '../../../src/store/index.js';
import { duringRetention } from '../../helpers/retention.js';
import { uncachedChat } from '../../helpers/store.js';
import { startTestSouk } from '../../helpers/souk.js';
import { mysqlReachable, SITE_LISTINGS, SITE_USERS, wordpressDatabase, type WordpressDatabase } from '../../helpers/wordpress.js';

const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';
const DAY = 86_400_000;
const ALICE = SITE_USERS.alice;
const IPHONE = SITE_LISTINGS.iphone;
const LIMITS = { textMaxLength: 100, maxFiles: 2 };
const OLD = Date.now() - 100 * DAY;
const CUTOFF = Date.now() - 50 * DAY;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function start(store: Store, at: number, text = 'hi'): Promise<number> {
  const alice = (await store.repos.users.findById(ALICE)) as User;
  const started = await startConversation(uncachedChat(store), alice, { listingId: IPHONE, text, files: [], tempId: null }, LIMITS, at);
  assert.ok(started.ok, JSON.stringify(started));
  return started.value.conversation.id;
}

const messagesOf = async (site: WordpressDatabase, conId: number) =>
  (
    await site.query<{ message: string }>('select message from wp_rtcl_conversation_messages where con_id = ? order by message_id', [conId])
  ).map((m) => m.message);

describe("the retention racing the chat on a WordPress site's tables", { skip }, () => {
  it('a send or a start during the delete waits for it: refused, or a new conversation; no message is left without its conversation', async () => {
    const site = await wordpressDatabase();
    const t = await startTestSouk({ DATABASE_URL: site.url }, null);
    const store = t.souk.store;

    const conId = await start(store, OLD);
    const input = { conId, listingId: null, text: 'still there?', files: [], tempId: null };
    const sent = await duringRetention(store, CUTOFF, () => sendMessage(store, ALICE, input, LIMITS));
    assert.equal(sent.deleted, 1);
    assert.deepEqual(sent.result, { ok: false, error: 'forbidden' });
    assert.deepEqual(await messagesOf(site, conId), [], 'no message left in the deleted conversation');

    const again = await start(store, OLD);
    const restarted = await duringRetention(store, CUTOFF, () => start(store, Date.now(), 'hello again'));
    assert.equal(restarted.deleted, 1);
    assert.notEqual(restarted.result, again);
    assert.deepEqual(await messagesOf(site, again), []);
    assert.deepEqual(await messagesOf(site, restarted.result), ['hello again']);
  });

  it('a conversation that gets a message while the retention looks at it stays, with every message', async () => {
    const site = await wordpressDatabase();
    const t = await startTestSouk({ DATABASE_URL: site.url }, null);
    const store = t.souk.store;
    const conId = await start(store, OLD);

    // A send's transaction holds the conversation it read; the retention's batch runs meanwhile.
    let read!: () => void;
    const reading = new Promise<void>((resolve) => (read = resolve));
    const send = store.transaction(async (repos) => {
      assert.ok(await repos.conversations.findById(conId));
      read();
      await sleep(300);
      await repos.messages.append(newMessage(conId, ALICE, { text: 'back again', files: [], tempId: null }, Date.now()));
    }, ALICE);
    await reading;
    assert.deepEqual(await deleteInactiveConversations(store, 50, Date.now()), { deleted: 0, skipped: false });
    await send;
    assert.ok(await store.repos.conversations.findById(conId));
    assert.deepEqual(await messagesOf(site, conId), ['hi', 'back again']);
  });
});
