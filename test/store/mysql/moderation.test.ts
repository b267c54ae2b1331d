/**
 * Moderation and a user's data on a WordPress site's tables (MariaDB): disable and enable (Souk's
 * user meta, the site's profile untouched), the admin's message removal in the plugin's table, the
 * export, the erasure (racing messages), and the retention of inactive conversations.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { removeMessage, setUserDisabled } from '../../../src/domain/moderation.js';
import { deleteInactiveConversations } from '../../../src/domain/retention.js';
import { eraseUser, exportUserData, NO_SAFETY_RECORDS } from '../../../src/domain/user-data.js';
import { ok } from '../../helpers/cli.js';
import { startTestSouk, type TestSouk } from '../../helpers/souk.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';

const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';
const { alice: ALICE, bob: BOB } = SITE_USERS;
const IPHONE = SITE_LISTINGS.iphone;
const CLOSED = { code: 'FORBIDDEN', message: 'You cannot send messages to this user.' };

const headers = (t: TestSouk, userId: number) => ({
  authorization: `Bearer ${t.token(userId, { login: SITE_LOGINS[userId]! })}`,
  'x-api-key': t.apiKey,
});
const send = (t: TestSouk, userId: number, conId: number, text: string) =>
  t.post('/wp-json/rtcl/v1/my/chat/message', { con_id: conId, text }, headers(t, userId));

describe("moderation on a WordPress site's tables", { skip }, () => {
  it('disables, removes a message as the admin does, exports, erases (racing messages) and forgets inactive conversations', async () => {
    const site = await wordpressDatabase();
    const t = await startTestSouk({ DATABASE_URL: site.url }, null);
    const store = t.souk.store;
    const started = await t.post(
      '/wp-json/rtcl/v1/my/chat/conversation',
      { listing_id: IPHONE, text: 'Is it unlocked?' },
      headers(t, ALICE),
    );
    assert.equal(started.statusCode, 200, started.body);
    const conId = Number(started.json().con_id);
    const answer = await send(t, BOB, conId, 'Yes, <b>unlocked</b>');
    assert.equal(answer.statusCode, 200, answer.body);
    assert.equal((await t.toggle(ALICE, { listing_id: IPHONE })).statusCode, 200);

    // The admin's removal: the row stays, emptied and typed `system`; both participants are told.
    const [first] = await site.query<{ message_id: number }>(
      'select message_id from wp_rtcl_conversation_messages where con_id = ? order by message_id limit 1',
      [conId],
    );
    const removed = await removeMessage(store, Number(first!.message_id));
    assert.ok(removed.ok);
    assert.equal(removed.value.text, '');
    const [row] = await site.query<{ message: string; type: string; attachments: string | null }>(
      'select message, type, attachments from wp_rtcl_conversation_messages where message_id = ?',
      [first!.message_id],
    );
    assert.deepEqual({ ...row }, { message: '', type: 'system', attachments: null });
    const updates = await site.query<{ user_id: number }>(
      "select user_id from wp_souk_events where type = 'message.update' order by user_id",
    );
    assert.deepEqual(
      updates.map((u) => Number(u.user_id)),
      [ALICE, BOB],
    );
    assert.deepEqual(await removeMessage(store, 999_999), { ok: false, error: 'no_such_message' });

    // Disabled: in Souk's own user meta; sign-in refuses them, no message to or from them.
    assert.deepEqual(await setUserDisabled(store, BOB, true), { ok: true, value: true });
    assert.equal((await store.accounts.findForSignIn(SITE_LOGINS[BOB]!))?.user.disabled, true);
    const refused = await send(t, ALICE, conId, 'Hello?');
    assert.equal(refused.statusCode, 403);
    assert.deepEqual(refused.json(), CLOSED);
    const [status] = await site.query<{ user_status: number }>('select user_status from wp_users where ID = ?', [BOB]);
    assert.equal(Number(status!.user_status), 0, "the site's own row is untouched");
    assert.deepEqual(await setUserDisabled(store, BOB, false), { ok: true, value: true });
    assert.equal((await send(t, ALICE, conId, 'Back?')).statusCode, 200);

    // The export: the profile, the favourite, the conversation with every message.
    const deps = { repos: store.repos, safety: NO_SAFETY_RECORDS, deviceTokens: (id: number) => store.pushDevices!.tokensOf(id) };
    const exported = await exportUserData(deps, ALICE);
    assert.ok(exported);
    assert.equal(exported.user.login, SITE_LOGINS[ALICE]);
    assert.deepEqual(
      exported.favourites.map((f) => f.listing_id),
      [IPHONE],
    );
    assert.equal(exported.conversations.length, 1);
    assert.deepEqual(
      exported.conversations[0]!.messages.map((m) => m.text),
      ['', 'Yes, unlocked', 'Back?'],
    );
    assert.equal(exported.conversations[0]!.other_user.id, BOB);

    // The erasure, racing Bob's messages to Alice: once it answered, none commits.
    const sends = Array.from({ length: 12 }, (_, i) => send(t, BOB, conId, `race ${i}`));
    const erased = await eraseUser(store, NO_SAFETY_RECORDS, ALICE);
    const atAnswer = await site.query<{ message_id: number }>('select message_id from wp_rtcl_conversation_messages where con_id = ?', [
      conId,
    ]);
    const answers = await Promise.all(sends);
    const after = await site.query<{ message_id: number }>('select message_id from wp_rtcl_conversation_messages where con_id = ?', [
      conId,
    ]);
    assert.deepEqual(after, atAnswer, 'no message committed after the erasure answered');
    for (const a of answers) assert.ok(a.statusCode === 200 || a.statusCode === 403, a.body);
    assert.ok(erased.ok);
    assert.equal(erased.value.profileErased, false);
    assert.equal(erased.value.favourites, 1);
    const aliceTexts = await site.query<{ message: string }>('select message from wp_rtcl_conversation_messages where source_id = ?', [
      ALICE,
    ]);
    assert.ok(aliceTexts.length >= 2 && aliceTexts.every((m) => m.message === ''));
    assert.equal((await store.accounts.findForSignIn(SITE_LOGINS[ALICE]!))?.user.disabled, true);
    assert.equal((await send(t, BOB, conId, 'still there?')).statusCode, 403);
    const again = await eraseUser(store, NO_SAFETY_RECORDS, ALICE);
    assert.ok(again.ok);
    assert.equal(again.value.messages + again.value.favourites + again.value.events, 0, 'idempotent');
    assert.deepEqual(await setUserDisabled(store, ALICE, false), { ok: false, error: 'erased' });
    const [wpUser] = await site.query<{ user_email: string }>('select user_email from wp_users where ID = ?', [ALICE]);
    assert.ok(wpUser!.user_email !== '', 'the wp_users row stays');

    // The commands on the site: the erasure says what stays WordPress's.
    const env = { DATABASE_URL: site.url };
    const erasedAgain = await ok('', ['users', 'erase', String(ALICE)], { env });
    assert.match(erasedAgain, /^user 2 erased: 0 messages emptied/);
    assert.match(erasedAgain, /the WordPress account stays: Souk erased the chat, favourites and blocks/);
    assert.equal(await ok('', ['users', 'disable', String(BOB)], { env }), `user ${BOB} disabled\n`);
    // Refused at once (403); once this server has read the revocation the disable wrote, at the token (401).
    assert.ok([401, 403].includes((await send(t, BOB, conId, 'me?')).statusCode));
    assert.equal(await ok('', ['users', 'enable', String(BOB)], { env }), `user ${BOB} enabled\n`);

    // Retention: nothing is that old yet; two days on, the conversation and its messages go.
    assert.deepEqual(await deleteInactiveConversations(store, 1, Date.now()), { deleted: 0, skipped: false });
    assert.deepEqual(await deleteInactiveConversations(store, 1, Date.now() + 2 * 86_400_000), { deleted: 1, skipped: false });
    const left = await site.query<{ n: number }>('select count(*) as n from wp_rtcl_conversation_messages where con_id = ?', [conId]);
    assert.equal(Number(left[0]!.n), 0);
  });
});
