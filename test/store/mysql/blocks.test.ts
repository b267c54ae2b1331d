/**
 * Blocks on a WordPress site (docs/safety.md, docs/wordpress.md): the user meta
 * `_rtcl_blocked_user_ids` and `_rtcl_blocked_listing_ids` written PHP-serialised exactly as the
 * plugin's Functions::updateBlockedUserIds writes them (the next key on adding, the other keys
 * kept on removing, the meta deleted when empty), a list the site wrote read by Souk, and what a
 * block does to the chat and the favourites list on MariaDB.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { parseBlockList, serializeBlockList, withAdded } from '../../../src/store/mysql/blocks.js';
import { startTestSouk, type TestSouk } from '../../helpers/souk.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';
import type { WordpressDatabase } from '../../helpers/wordpress.js';

const JWT_SECRET = 'souk-blocks-test-secret-0123456789abcdef';
const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';
const API = '/wp-json/rtcl/v1';
const { alice: ALICE, bob: BOB, carol: CAROL } = SITE_USERS;
const { iphone: IPHONE, table: TABLE, laptop: LAPTOP } = SITE_LISTINGS;
const BLOCKED = { code: 'FORBIDDEN', message: 'You cannot send messages to this user.' };

/** Their display names (wp_users.display_name), never their logins (a Fix). */
const DISPLAY_NAMES: Record<number, string> = { [ALICE]: 'Alice Tester', [BOB]: 'Bob Tester', [CAROL]: 'Carol Tester' };
const user = (id: number) => ({ id, name: DISPLAY_NAMES[id], email: '' });

function call(t: TestSouk, method: 'GET' | 'POST' | 'DELETE', url: string, as: number, body?: unknown): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${t.token(as, { login: SITE_LOGINS[as] })}`,
    'x-api-key': t.apiKey,
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  };
  return t.app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
}

function expectReply(res: LightMyRequestResponse, status: number, body: unknown, label = ''): void {
  assert.equal(res.statusCode, status, `${label} ${res.body}`);
  assert.equal(res.body, JSON.stringify(body), label);
}

async function metaOf(site: WordpressDatabase, userId: number, key: string): Promise<string[]> {
  const rows = await site.query<{ meta_value: string }>(
    'select meta_value from wp_usermeta where user_id = ? and meta_key = ? order by umeta_id',
    [userId, key],
  );
  return rows.map((r) => r.meta_value);
}

describe('the plugin form of a block list, without a database', () => {
  it('adds at the next key and keeps the other keys on removing, as PHP arrays do', () => {
    assert.equal(serializeBlockList(withAdded([], 3)), 'a:1:{i:0;i:3;}');
    const list = parseBlockList('a:3:{i:0;i:3;i:2;i:4;i:5;i:9;}');
    assert.deepEqual(list, [
      { key: 0, id: 3 },
      { key: 2, id: 4 },
      { key: 5, id: 9 },
    ]);
    assert.equal(serializeBlockList(withAdded(list, 7)), 'a:4:{i:0;i:3;i:2;i:4;i:5;i:9;i:6;i:7;}');
    assert.equal(serializeBlockList(list.filter((e) => e.id !== 4)), 'a:2:{i:0;i:3;i:5;i:9;}');
    // Strings of digits (another writer) are read as ids; anything else is no list.
    assert.deepEqual(parseBlockList('a:1:{i:0;s:1:"3";}'), [{ key: 0, id: 3 }]);
    assert.deepEqual(parseBlockList('not serialised'), []);
    assert.deepEqual(parseBlockList('s:3:"abc";'), []);
  });
});

describe('blocks on a WordPress site', { skip }, () => {
  it('writes the user meta as the plugin does, and reads the lists the site writes', async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    const t = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET }, null);
    const BLOCK = `${API}/privacy/user/block`;
    expectReply(await call(t, 'GET', BLOCK, ALICE), 200, []);
    expectReply(await call(t, 'POST', BLOCK, ALICE, { user_id: BOB }), 200, [user(BOB)]);
    assert.deepEqual(await metaOf(site, ALICE, '_rtcl_blocked_user_ids'), ['a:1:{i:0;i:3;}']);
    expectReply(await call(t, 'POST', BLOCK, ALICE, { user_id: CAROL }), 200, [user(BOB), user(CAROL)]);
    expectReply(await call(t, 'POST', BLOCK, ALICE, { user_id: BOB }), 200, [user(BOB), user(CAROL)], 'twice');
    // The site's administrator (user 1) is answered as an unknown user: staff cannot be blocked.
    expectReply(
      await call(t, 'POST', BLOCK, ALICE, { user_id: 1 }),
      404,
      { code: 'rtcl_rest_validation_error', message: 'User not found.', data: { status: 404 } },
      'staff',
    );
    assert.deepEqual(await metaOf(site, ALICE, '_rtcl_blocked_user_ids'), ['a:2:{i:0;i:3;i:1;i:4;}']);
    expectReply(await call(t, 'DELETE', `${BLOCK}?user_id=${BOB}`, ALICE), 200, [user(CAROL)]);
    assert.deepEqual(await metaOf(site, ALICE, '_rtcl_blocked_user_ids'), ['a:1:{i:1;i:4;}'], 'the other keys kept');
    expectReply(await call(t, 'DELETE', `${BLOCK}?user_id=${CAROL}`, ALICE), 200, []);
    assert.deepEqual(await metaOf(site, ALICE, '_rtcl_blocked_user_ids'), [], 'an empty list deletes the meta');
    expectReply(await call(t, 'POST', BLOCK, ALICE, { user_id: ALICE }), 400, {
      status: 'error',
      error: 'BADREQUEST',
      code: '400',
      error_message: 'You cannot block yourself.',
    });
    expectReply(await call(t, 'POST', BLOCK, ALICE, { user_id: 99 }), 404, {
      code: 'rtcl_rest_validation_error',
      message: 'User not found.',
      data: { status: 404 },
    });

    // A list the site wrote (the plugin's own route, after a removal left a gap).
    await site.query("insert into wp_usermeta (user_id, meta_key, meta_value) values (?, '_rtcl_blocked_user_ids', ?)", [
      CAROL,
      'a:2:{i:0;i:3;i:2;i:2;}',
    ]);
    expectReply(await call(t, 'GET', BLOCK, CAROL), 200, [user(BOB), user(ALICE)]);
    expectReply(await call(t, 'POST', BLOCK, CAROL, { user_id: ALICE }), 200, [user(BOB), user(ALICE)]);
    assert.deepEqual(await metaOf(site, CAROL, '_rtcl_blocked_user_ids'), ['a:2:{i:0;i:3;i:2;i:2;}'], 'unchanged');

    const LISTING_BLOCK = `${API}/privacy/listing/block`;
    expectReply(await call(t, 'POST', LISTING_BLOCK, ALICE, { listing_id: LAPTOP }), 200, [{ id: LAPTOP, title: 'Gaming Laptop' }]);
    expectReply(await call(t, 'POST', `${LISTING_BLOCK}?listing_id=${TABLE}`, ALICE), 200, [
      { id: LAPTOP, title: 'Gaming Laptop' },
      { id: TABLE, title: 'Oak Dining Table' },
    ]);
    assert.deepEqual(await metaOf(site, ALICE, '_rtcl_blocked_listing_ids'), ['a:2:{i:0;i:14;i:1;i:10;}']);
    expectReply(await call(t, 'DELETE', `${LISTING_BLOCK}?listing_id=${LAPTOP}`, ALICE), 200, [{ id: TABLE, title: 'Oak Dining Table' }]);
    assert.deepEqual(await metaOf(site, ALICE, '_rtcl_blocked_listing_ids'), ['a:1:{i:1;i:10;}']);
    expectReply(await call(t, 'POST', LISTING_BLOCK, BOB, { listing_id: IPHONE }), 400, {
      status: 'error',
      error: 'BADREQUEST',
      code: '400',
      error_message: 'You cannot block your own listing.',
    });
    expectReply(await call(t, 'DELETE', `${LISTING_BLOCK}?listing_id=${LAPTOP}`, ALICE), 404, {
      code: 'rtcl_rest_validation_error',
      message: 'Listing not exist at blocked list.',
      data: { status: 404 },
    });
  });

  it('enforces the blocks of both Souk and the site: start, send, the chat list, the favourites list', async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    const t = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET }, null);
    const started = await call(t, 'POST', `${API}/my/chat/conversation`, ALICE, { listing_id: IPHONE, text: 'Still for sale?' });
    assert.equal(started.statusCode, 200, started.body);
    const conId = Number(JSON.parse(started.body).con_id);
    const chatIds = async (as: number) =>
      (JSON.parse((await call(t, 'GET', `${API}/my/chat`, as)).body).data as any[]).map((c) => Number(c.con_id));
    assert.ok((await chatIds(BOB)).includes(conId));

    assert.equal((await call(t, 'POST', `${API}/privacy/user/block`, BOB, { user_id: ALICE })).statusCode, 200);
    expectReply(await call(t, 'POST', `${API}/my/chat/message`, ALICE, { con_id: conId, text: 'Hello?' }), 403, BLOCKED);
    expectReply(await call(t, 'POST', `${API}/my/chat/message`, BOB, { con_id: conId, text: 'Yes' }), 403, BLOCKED);
    expectReply(await call(t, 'POST', `${API}/my/chat/conversation`, ALICE, { listing_id: TABLE, text: 'Hi' }), 403, BLOCKED);
    assert.ok(!(await chatIds(BOB)).includes(conId), "left out of the blocker's list");
    assert.ok((await chatIds(ALICE)).includes(conId), "the blocked user's list is unchanged");
    assert.equal((await call(t, 'GET', `${API}/my/chat/conversation?con_id=${conId}`, ALICE)).statusCode, 200, 'reads still work');

    // A block the site wrote (carol blocked alice there) is enforced at once.
    await site.query("insert into wp_usermeta (user_id, meta_key, meta_value) values (?, '_rtcl_blocked_user_ids', 'a:1:{i:0;i:2;}')", [
      CAROL,
    ]);
    expectReply(await call(t, 'POST', `${API}/my/chat/conversation`, ALICE, { listing_id: LAPTOP, text: 'Hi' }), 403, BLOCKED);

    // Favourites: a blocked listing, and every listing of a blocked user, left out of the list.
    for (const id of [IPHONE, TABLE, LAPTOP]) assert.equal((await t.toggle(CAROL, { listing_id: id })).statusCode, 200);
    const shown = async (as: number) =>
      (JSON.parse((await call(t, 'GET', `${API}/my/favourites`, as)).body).data as any[]).map((l) => Number(l.listing_id));
    assert.deepEqual(await shown(CAROL), [LAPTOP, TABLE, IPHONE]);
    assert.equal((await call(t, 'POST', `${API}/privacy/listing/block`, CAROL, { listing_id: TABLE })).statusCode, 200);
    assert.deepEqual(await shown(CAROL), [LAPTOP, IPHONE]);
    assert.equal((await call(t, 'POST', `${API}/privacy/user/block`, CAROL, { user_id: BOB })).statusCode, 200);
    assert.deepEqual(await shown(CAROL), [LAPTOP]);
    assert.deepEqual(await metaOf(site, CAROL, '_rtcl_blocked_user_ids'), ['a:2:{i:0;i:2;i:1;i:3;}']);

    // Unblocking brings the conversation back.
    assert.equal((await call(t, 'DELETE', `${API}/privacy/user/block?user_id=${ALICE}`, BOB)).statusCode, 200);
    assert.ok((await chatIds(BOB)).includes(conId));
    assert.equal((await call(t, 'POST', `${API}/my/chat/message`, BOB, { con_id: conId, text: 'Yes' })).statusCode, 200);
  });

  it('lets no message of the blocked user commit after the block has answered', async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    const t = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET }, null);
    const base = await t.listen();
    const post = (as: number, path: string, body: unknown) =>
      fetch(`${base}${API}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.token(as, { login: SITE_LOGINS[as] })}`,
          'x-api-key': t.apiKey,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      });
    const started = await post(ALICE, '/my/chat/conversation', { listing_id: IPHONE, text: 'Hello' });
    assert.equal(started.status, 200);
    const conId = Number(((await started.json()) as { con_id: number }).con_id);
    const count = async () =>
      Number(
        (await site.query<{ n: number }>('select count(*) as n from wp_rtcl_conversation_messages where source_id = ?', [ALICE]))[0]!.n,
      );
    let sent = 0;
    const statuses: number[] = [];
    const worker = async () => {
      for (;;) {
        const res = await post(ALICE, '/my/chat/message', { con_id: conId, text: `message ${sent}` });
        await res.arrayBuffer();
        statuses.push(res.status);
        if (res.status !== 200) return;
        sent++;
      }
    };
    const workers = Array.from({ length: 6 }, worker);
    while (sent < 15) await new Promise((resolve) => setImmediate(resolve));
    const blocked = await post(BOB, '/privacy/user/block', { user_id: ALICE });
    assert.equal(blocked.status, 200, await blocked.text());
    const atAnswer = await count();
    await Promise.all(workers);
    assert.equal(await count(), atAnswer, 'a message committed after the block answered');
    assert.equal(statuses.filter((s) => s === 403).length, 6);
    assert.equal(atAnswer, 1 + statuses.filter((s) => s === 200).length);
  });
});
