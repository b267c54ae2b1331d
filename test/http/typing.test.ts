/**
 * POST my/chat/typing (issue 50): `conversation.typing` to the other participant's event streams,
 * never stored (no `id:`, nothing replayed), at most one every 3 s per conversation and sender,
 * nothing across a block or to a disabled user, 403 for a conversation of others; and no database
 * statement for a typing request once its caller and conversation were seen (counted).
 * On SQLite, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import pg from 'pg';
import { startTestSouk as startSouk, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { SseClient } from '../helpers/sse.js';
import { until } from '../helpers/until.js';
import type { LiveEvent } from '../../src/domain/events.js';

const API = '/wp-json/rtcl/v1';
const TYPING = `${API}/my/chat/typing`;
const EVENTS = `${API}/my/events`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function stream(t: TestSouk, base: string, userId: number, headers: Record<string, string> = {}) {
  const client = await SseClient.open(base + EVENTS, { ...t.auth(userId), ...headers });
  assert.equal(client.status, 200, client.body);
  await until(() => t.souk.streams!.isStreaming(userId));
  return client;
}

/** Every LiveEvent this instance publishes or hears, as Pusher would. */
function published(t: TestSouk): LiveEvent[] {
  const seen: LiveEvent[] = [];
  t.souk.live!.subscribe((e) => seen.push(e));
  return seen;
}

/**
 * Each test's Souk is closed when the test ends: the statement count watches the SQLite engine of
 * the whole process, so no other Souk may poll meanwhile (the file runs in a process of its own).
 */
const open: TestSouk[] = [];
const startTestSouk = async (env?: Record<string, string>) => {
  const t = await startSouk(env);
  open.push(t);
  return t;
};
afterEach(() => Promise.all(open.splice(0).map((t) => t.close())));

const typing = (t: TestSouk, userId: number, conId: number) => t.post(TYPING, { con_id: conId }, t.auth(userId));

/**
 * The statements the store sends while `fn` runs: node:sqlite's statements, or pg's queries (a
 * NOTIFY apart: it writes nothing, and is how typing reaches the other instances).
 */
async function statements(t: TestSouk, fn: () => Promise<void>): Promise<{ sql: string[]; notifies: number }> {
  const sql: string[] = [];
  let notifies = 0;
  const restore: Array<() => void> = [];
  const watch = (proto: Record<string, unknown>, names: string[], text: (self: unknown, args: unknown[]) => string | undefined) => {
    for (const name of names) {
      const original = proto[name] as (...a: unknown[]) => unknown;
      proto[name] = function (this: unknown, ...args: unknown[]) {
        const said = text(this, args);
        if (said === undefined) return original.apply(this, args);
        if (said.startsWith('select pg_notify(')) notifies++;
        else sql.push(said);
        return original.apply(this, args);
      };
      restore.push(() => (proto[name] = original));
    }
  };
  if (t.souk.store.dialect === 'postgres') {
    // Only this test's database: other files' servers may still poll in this process (docs/testing.md).
    const database = new URL(t.database.url).pathname.slice(1);
    watch(pg.Client.prototype as never, ['query'], (self, args) => {
      if ((self as { connectionParameters?: { database?: string } }).connectionParameters?.database !== database) return undefined;
      const q = args[0] as string | { text: string };
      return typeof q === 'string' ? q : q.text;
    });
  } else {
    const { StatementSync } = createRequire(import.meta.url)('node:sqlite') as { StatementSync: { prototype: Record<string, unknown> } };
    watch(StatementSync.prototype, ['all', 'get', 'run', 'iterate'], (self) =>
      String((self as { sourceSQL?: string }).sourceSQL ?? 'sqlite'),
    );
  }
  try {
    await fn();
  } finally {
    for (const r of restore) r();
  }
  return { sql, notifies };
}

/** Quiet background: no push outbox, the settings read once a minute, so that only requests send statements. */
const QUIET = { PUSH_NOTIFICATIONS: 'false', SETTINGS_REFRESH_MS: '60000' };

describe('POST my/chat/typing', () => {
  it("tells the other participant's streams, without an id, and nothing to the typist; Last-Event-ID is untouched", async () => {
    const t = await startTestSouk();
    const base = await t.listen();
    const conId = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json().con_id;
    const owner = await stream(t, base, USERS.youssef);
    const buyer = await stream(t, base, USERS.amina);
    const reply = await typing(t, USERS.amina, conId);
    assert.equal(reply.statusCode, 204, reply.body);
    assert.equal(reply.body, '');
    const [event] = await owner.take(1);
    assert.equal(event!.event, 'conversation.typing');
    assert.equal(event!.id, undefined);
    assert.deepEqual(JSON.parse(event!.data), { conversation_id: conId, user_id: USERS.amina });
    await buyer.nothingWithin(200);

    // The next logged event follows the last one's id; a reconnection after it replays no typing.
    const answer = await t.post(`${API}/my/chat/message`, { con_id: conId, text: 'Hi' }, t.auth(USERS.youssef));
    assert.equal(answer.statusCode, 200);
    const [message] = await buyer.take(2);
    assert.equal(message!.event, 'message.new');
    const again = await stream(t, base, USERS.youssef, { 'last-event-id': '0' });
    const replayed = await again.take(3);
    assert.deepEqual(
      replayed.map((e) => e.event),
      ['conversation.new', 'message.new', 'conversation.unread'],
    );
    await again.nothingWithin(200);
    for (const c of [owner, buyer, again]) c.close();
  });

  it('sends at most one every 3 s per conversation and sender; the rest is answered 204 and sends nothing', async () => {
    const t = await startTestSouk();
    const base = await t.listen();
    const conId = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json().con_id;
    const other = (await t.start(USERS.sara, { listing_id: LISTINGS.aminasOwn, text: 'And your chair?' })).json().con_id;
    const owner = await stream(t, base, USERS.youssef);
    const buyer = await stream(t, base, USERS.amina);
    const sara = await stream(t, base, USERS.sara);
    const flood = await Promise.all(Array.from({ length: 20 }, () => typing(t, USERS.amina, conId)));
    // The one sent was sent by now.
    const floodEnd = Date.now();
    assert.deepEqual(
      flood.map((r) => r.statusCode),
      Array(20).fill(204),
    );
    // Another conversation, and the other participant of this one, have limits of their own.
    assert.equal((await typing(t, USERS.amina, other)).statusCode, 204);
    assert.equal((await typing(t, USERS.youssef, conId)).statusCode, 204);
    assert.deepEqual(JSON.parse((await owner.take(1))[0]!.data), { conversation_id: conId, user_id: USERS.amina });
    assert.deepEqual(JSON.parse((await sara.take(1))[0]!.data), { conversation_id: other, user_id: USERS.amina });
    assert.deepEqual(JSON.parse((await buyer.take(1))[0]!.data), { conversation_id: conId, user_id: USERS.youssef });
    await owner.nothingWithin(300);
    await sleep(Math.max(0, floodEnd + 3100 - Date.now()));
    assert.equal((await typing(t, USERS.amina, conId)).statusCode, 204);
    assert.deepEqual(JSON.parse((await owner.take(1))[0]!.data), { conversation_id: conId, user_id: USERS.amina });
    for (const c of [owner, buyer, sara]) c.close();
  });

  it("refuses another's conversation and a missing one (403 A), a missing con_id (400 B), and a caller without a token", async () => {
    const t = await startTestSouk();
    const seen = published(t);
    const conId = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json().con_id;
    for (const id of [conId, 999_999]) {
      const refused = await typing(t, USERS.sara, id);
      assert.equal(refused.statusCode, 403);
      assert.deepEqual(refused.json(), { code: 'FORBIDDEN', message: 'You are not permitted to access this conversation.' });
    }
    const missing = await t.post(TYPING, {}, t.auth(USERS.amina));
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().error, 'BADREQUEST');
    const anonymous = await t.post(TYPING, { con_id: conId }, { 'x-api-key': t.apiKey });
    assert.equal(anonymous.statusCode, 401);
    // The query string names it too (N2).
    assert.equal((await t.post(`${TYPING}?con_id=${conId}`, '', t.auth(USERS.amina))).statusCode, 204);
    assert.deepEqual(seen, [{ type: 'conversation.typing', to: USERS.youssef, conversationId: conId, userId: USERS.amina }]);
  });

  it('sends nothing across a block, either way, from the moment it is answered; again once lifted', async () => {
    const t = await startTestSouk();
    const seen = published(t);
    const conId = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json().con_id;
    assert.equal((await typing(t, USERS.amina, conId)).statusCode, 204);
    assert.equal((await typing(t, USERS.youssef, conId)).statusCode, 204);
    assert.equal(seen.filter((e) => e.type === 'conversation.typing').length, 2);
    const blocked = await t.post(`${API}/privacy/user/block`, { user_id: USERS.amina }, t.auth(USERS.youssef));
    assert.equal(blocked.statusCode, 200, blocked.body);
    await sleep(3100);
    assert.equal((await typing(t, USERS.amina, conId)).statusCode, 204);
    assert.equal((await typing(t, USERS.youssef, conId)).statusCode, 204);
    assert.equal(seen.filter((e) => e.type === 'conversation.typing').length, 2);
    const lifted = await t.app.inject({
      method: 'DELETE',
      url: `${API}/privacy/user/block?user_id=${USERS.amina}`,
      headers: t.auth(USERS.youssef),
    });
    assert.equal(lifted.statusCode, 200, lifted.body);
    assert.equal((await typing(t, USERS.amina, conId)).statusCode, 204);
    assert.deepEqual(seen.filter((e) => e.type === 'conversation.typing').at(-1), {
      type: 'conversation.typing',
      to: USERS.youssef,
      conversationId: conId,
      userId: USERS.amina,
    });
  });

  it('sends nothing to a disabled user', async () => {
    const t = await startTestSouk();
    const seen = published(t);
    // A conversation the disabled user began before they were disabled (the fixture's user 4).
    const conId = await t.souk.store.transaction(
      async (repos) => (await repos.conversations.create(LISTINGS.aminasOwn, USERS.disabled, USERS.amina, Date.now())).id,
    );
    assert.equal((await typing(t, USERS.amina, conId)).statusCode, 204);
    assert.deepEqual(seen, []);
  });

  it('sends no database statement for a typing request once its caller and conversation were seen', async () => {
    const t = await startTestSouk(QUIET);
    const base = await t.listen();
    const conId = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json().con_id;
    const owner = await stream(t, base, USERS.youssef);
    // The first reads the conversation and the blocks once (the count sees them).
    const first = await statements(t, async () => {
      assert.equal((await typing(t, USERS.amina, conId)).statusCode, 204);
      await owner.take(1);
    });
    assert.ok(first.sql.some((s) => /conversations/.test(s)) && first.sql.some((s) => /blocks/.test(s)), first.sql.join('\n'));
    await sleep(3100);
    const counted = await statements(t, async () => {
      assert.equal((await typing(t, USERS.amina, conId)).statusCode, 204);
      await owner.take(1);
      for (let i = 0; i < 10; i++) assert.equal((await typing(t, USERS.amina, conId)).statusCode, 204);
    });
    assert.deepEqual(counted.sql, []);
    // On PostgreSQL the one event sent goes to the other instances in one NOTIFY, which writes nothing.
    assert.equal(counted.notifies, t.souk.store.dialect === 'postgres' ? 1 : 0);
    owner.close();
  });
});
