/**
 * PostgreSQL's unit of work (src/store/postgres/transaction.ts, transaction-runner.ts): BEGIN, the
 * writer's lock and the first statement go in one message, and the event log's and outboxes' writes
 * with the next one, each joined as an EXECUTE of its prepared statement; what is joined answers and
 * writes as it does alone; the lock is really held until the transaction ends. The SQLite store has
 * no per-user lock (its write batch runs one member at a time), so these run on PostgreSQL only.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { sql } from 'kysely';
import { freshDatabase, TEST_POSTGRES_URL, type TestDatabase } from '../../helpers/database.js';
import { openStore, type Store } from '../../../src/store/index.js';
import { openMarketplaceStore, uncachedChat } from '../../helpers/store.js';
import { writerLock } from '../../../src/store/postgres/transaction.js';
import { executeText, quoted } from '../../../src/store/postgres/transaction-runner.js';
import { LISTINGS, USERS } from '../../helpers/fixtures.js';
import { until } from '../../helpers/until.js';
import { toggleFavourite } from '../../../src/domain/favourites.js';
import { markRead, sendMessage } from '../../../src/domain/chat/message.js';
import { startConversation } from '../../../src/domain/chat/conversation.js';
import type { FirstMessage } from '../../../src/domain/model.js';
import type { OpenedConversation } from '../../../src/domain/ports.js';

const LIMITS = { textMaxLength: 100, maxFiles: 2 };

const OPTIONS = { poolSize: 2, statementTimeoutMs: 2000, connectTimeoutMs: 2000 };

describe("the writer's lock", () => {
  it('is a named statement taking the user id, and the same with the id written in for a connection without it', () => {
    const lock = writerLock(42);
    assert.equal(lock.name, 'souk_writer_lock');
    assert.equal(lock.query.sql, 'select id, blocks from users where id = $1 for no key update');
    assert.deepEqual(lock.query.parameters, [42]);
    assert.equal(lock.text, 'select id, blocks from users where id = 42 for no key update');
  });

  it('takes only an integer into its SQL', () => {
    for (const bad of [1.5, NaN, Infinity, 2 ** 53, '1; drop table users' as unknown as number]) {
      assert.throws(() => writerLock(bad), TypeError);
    }
  });
});

describe('a statement written out to go with other statements', () => {
  const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

  it('is an EXECUTE of its named statement, with integers, nulls and quoted text', () => {
    assert.equal(executeText('souk_7', [7, -3, null, "it's"], quote), "execute souk_7(7, -3, null, 'it''s')");
    assert.equal(executeText('souk_8', [], quote), 'execute souk_8');
  });

  it('is not written out with a fraction, an unsafe integer, a boolean, text with NUL, or an odd name', () => {
    for (const parameters of [[1.5], [2 ** 53], [true], ['a\u0000b'], [undefined]]) {
      assert.equal(executeText('souk_7', parameters, quote), undefined, String(parameters));
    }
    assert.equal(executeText('souk_7; drop table users', [1], quote), undefined);
    assert.equal(executeText('Souk_7', [1], quote), undefined);
  });
});

describe('PostgreSQL transactions', { skip: TEST_POSTGRES_URL ? false : 'PostgreSQL only' }, () => {
  let database: TestDatabase;
  let store: Store;
  let other: pg.Client;

  before(async () => {
    database = await freshDatabase();
    store = await openMarketplaceStore(database.url, OPTIONS);
    other = new pg.Client({ connectionString: database.url });
    await other.connect();
  });

  after(async () => {
    await other.end();
    await store.close();
    await database.drop();
  });

  /** Whether another connection could take the user's lock right now. */
  const lockFree = async (userId: number) => {
    await other.query('begin');
    try {
      await other.query('select id from users where id = $1 for no key update nowait', [userId]);
      return true;
    } catch (err) {
      assert.equal((err as { code?: string }).code, '55P03', String(err)); // lock_not_available
      return false;
    } finally {
      await other.query('rollback');
    }
  };

  it("holds the writer's lock from its first statement until the transaction ends, and no other user's", async () => {
    await store.transaction(async (repos) => {
      assert.equal(await lockFree(USERS.sara), true, 'locked before any statement');
      await repos.users.findById(USERS.youssef);
      assert.equal(await lockFree(USERS.sara), false, "the writer's row is not locked");
      assert.equal(await lockFree(USERS.youssef), true, "another user's row is locked");
    }, USERS.sara);
    assert.equal(await lockFree(USERS.sara), true, 'the lock outlived the transaction');
  });

  it('takes no lock without a writer', async () => {
    await store.transaction(async (repos) => {
      await repos.users.findById(USERS.youssef);
      assert.equal(await lockFree(USERS.sara), true);
    });
  });

  it('commits the work, or rolls all of it back when it fails', async () => {
    const favourites = () => store.repos.favourites.listIds(USERS.sara);
    await store.transaction((repos) => repos.favourites.toggle(USERS.sara, LISTINGS.bike, 1), USERS.sara);
    assert.deepEqual(await favourites(), [LISTINGS.bike]);
    await assert.rejects(
      store.transaction(async (repos) => {
        await repos.favourites.toggle(USERS.sara, LISTINGS.bike, 2);
        throw new Error('the work failed');
      }, USERS.sara),
      /the work failed/,
    );
    assert.deepEqual(await favourites(), [LISTINGS.bike], 'a failed transaction left its write');
    assert.equal(await lockFree(USERS.sara), true, 'the failed transaction kept its lock');
  });

  it('fails when the lock cannot be had in time, and leaves no transaction open on the connection', async () => {
    await other.query('begin');
    try {
      await other.query('select id from users where id = $1 for no key update', [USERS.sara]);
      // The store's statement timeout (OPTIONS) ends the wait.
      await assert.rejects(
        store.transaction((repos) => repos.users.findById(USERS.youssef), USERS.sara),
        /statement timeout/i,
      );
    } finally {
      await other.query('rollback');
    }
    // Every connection of the pool (OPTIONS.poolSize) works as before: none came back mid-transaction.
    const runs = Array.from({ length: OPTIONS.poolSize * 2 }, (_, i) =>
      store.transaction((repos) => repos.favourites.listIds(USERS.youssef), i % 2 === 0 ? USERS.youssef : undefined),
    );
    await Promise.all(runs);
    await store.transaction(async () => assert.equal(await lockFree(USERS.sara), true));
  });

  /** On a store whose pool has one connection: outside a transaction, now() is the statement's own time. */
  const noTransactionOpen = async (one: Store) =>
    (await sql<{ fresh: boolean }>`select now() = statement_timestamp() as fresh`.execute(one.db)).rows[0]?.fresh;

  /**
   * Runs `fn` while `watch` is told of each query a connection of this test's schema (but `other`)
   * is asked for, with what the call returned (the promise of its answer, or nothing when it was
   * given a callback): other files' servers may still be running in this process (docs/testing.md).
   */
  async function watchingQueries<T>(watch: (client: pg.Client, text: string, answered: unknown) => void, fn: () => Promise<T>) {
    const schema = new URL(database.url).searchParams.get('options');
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const answered = (query as (...a: unknown[]) => unknown).apply(this, args);
      const q = args[0] as string | { text: string };
      const ours = (this as unknown as { connectionParameters?: { options?: string } }).connectionParameters?.options === schema;
      if (ours && this !== other) watch(this, typeof q === 'string' ? q : q.text, answered);
      return answered;
    } as typeof query;
    try {
      return await fn();
    } finally {
      pg.Client.prototype.query = query;
    }
  }

  /**
   * Runs `fn` with the text of every query the store's clients send meanwhile (watchingQueries): the
   * test's own client is left out, and the NOTIFY a commit is followed by, which another pooled
   * connection sends (event-signals.ts).
   */
  async function observingQueries<T>(fn: (sent: string[]) => Promise<T>): Promise<T> {
    const sent: string[] = [];
    return watchingQueries(
      (_client, text) => void (text.startsWith('select pg_notify(') || sent.push(text)),
      () => fn(sent),
    );
  }

  /**
   * `work` on `one`, as sara, fails while another connection holds the row of a new conversation
   * (`buyer`'s, one open per buyer) past the statement timeout.
   */
  async function failsOnLockedConversation(
    one: Store,
    buyer: number,
    work: (repos: Store['repos'], conversation: number) => Promise<unknown>,
  ) {
    const conversation = await store.transaction(
      async (repos) => (await repos.conversations.create(LISTINGS.table, buyer, USERS.youssef, 5)).id,
    );
    await other.query('begin');
    try {
      await other.query('select id from conversations where id = $1 for update', [conversation]);
      await assert.rejects(
        one.transaction((repos) => work(repos, conversation), USERS.sara),
        /statement timeout/i,
      );
    } finally {
      await other.query('rollback');
    }
  }

  it('sends BEGIN, the lock and the first statement in one message once it is prepared, and answers as the statement alone', async () => {
    const one = openStore(database.url, { ...OPTIONS, poolSize: 1 });
    try {
      const conversation = await store.transaction(
        async (repos) => (await repos.conversations.create(LISTINGS.bike, USERS.sara, USERS.youssef, 5)).id,
        USERS.sara,
      );
      const plain = {
        user: await store.repos.users.findById(USERS.youssef),
        listing: await store.repos.listings.findById(LISTINGS.bike),
        conversation: await store.repos.conversations.findById(conversation),
        favourites: await store.repos.favourites.listIds(USERS.youssef),
      };
      assert.ok(plain.user && plain.listing && plain.conversation, 'each read found its row');
      const round = async () => ({
        user: await one.transaction((repos) => repos.users.findById(USERS.youssef), USERS.sara),
        listing: await one.transaction((repos) => repos.listings.findById(LISTINGS.bike), USERS.sara),
        conversation: await one.transaction((repos) => repos.conversations.findById(conversation), USERS.youssef),
        favourites: await one.transaction((repos) => repos.favourites.listIds(USERS.youssef)),
      });
      await observingQueries(async (sent) => {
        // New on the connection: BEGIN and the lock as text, the lock again to prepare it (the first
        // time only), the statement alone (prepared now), COMMIT.
        assert.deepEqual(await round(), plain);
        assert.equal(sent.length, 13, sent.join('\n'));
        sent.length = 0;
        // Prepared: one message with BEGIN, the lock and an EXECUTE of the statement, then COMMIT.
        assert.deepEqual(await round(), plain);
        assert.equal(sent.length, 8, sent.join('\n'));
        for (const [i, text] of sent.entries()) {
          if (i % 2 === 1) assert.equal(text, 'commit');
          else assert.match(text, /^begin; (execute souk_writer_lock\(\d+\); )?execute souk_\d+\(\d+\)$/, text);
        }
        // A transaction that runs no statement sends nothing.
        sent.length = 0;
        assert.equal(await one.transaction(async () => 'nothing', USERS.sara), 'nothing');
        assert.deepEqual(sent, []);
      });
    } finally {
      await one.close();
    }
  });

  it("toggles a favourite in one message, the writer's lock and the toggle a transaction of their own; with webhooks, in two", async () => {
    const one = openStore(database.url, { ...OPTIONS, poolSize: 1, statementTimeoutMs: 300 });
    const hooked = openStore(database.url, { ...OPTIONS, poolSize: 1, webhookUrls: ['http://127.0.0.1:9/hook'] });
    try {
      const toggle = (on: Store, listingId: number) => toggleFavourite(on, USERS.youssef, listingId);
      await toggle(one, LISTINGS.table); // prepares the statements on the connection
      await toggle(hooked, LISTINGS.table);
      await observingQueries(async (sent) => {
        // No BEGIN, no COMMIT: one message's statements are one transaction. The listing's check is in the toggle's statement.
        assert.deepEqual(await toggle(one, LISTINGS.table), { ok: true, favouriteIds: [LISTINGS.table] });
        assert.equal(sent.length, 1, sent.join('\n'));
        assert.match(sent[0]!, /^execute souk_writer_lock\(\d+\); execute souk_\d+\([^)]*\)$/);
        sent.length = 0;
        assert.deepEqual(await toggle(one, LISTINGS.trashed), { ok: false, error: 'listing_not_found' });
        assert.equal(sent.length, 1, sent.join('\n'));
        // With a webhook receiver the toggle records its event: BEGIN, then COMMIT with the outbox row.
        sent.length = 0;
        assert.deepEqual(await toggle(hooked, LISTINGS.table), { ok: true, favouriteIds: [] });
        assert.equal(sent.length, 2, sent.join('\n'));
        assert.match(sent[0]!, /^begin; execute souk_writer_lock\(\d+\); execute souk_\d+\(/);
        assert.match(sent[1]!, /favourite\.removed.*; commit$/);
      });
      // Another connection holds Youssef's row past the statement timeout: the toggle fails, and
      // leaves no transaction open on the pool's one connection.
      await other.query('begin');
      await other.query('select id from users where id = $1 for no key update', [USERS.youssef]);
      await assert.rejects(toggle(one, LISTINGS.table), /statement timeout/);
      await other.query('rollback');
      assert.equal(await noTransactionOpen(one), true, 'no transaction left open');
      assert.deepEqual(await toggle(one, LISTINGS.table), { ok: true, favouriteIds: [LISTINGS.table] });
      assert.equal(await lockFree(USERS.youssef), true);
      assert.deepEqual(await one.repos.favourites.listIds(USERS.youssef), [LISTINGS.table]);
      // A unit run alone that asks for a statement after its one is refused: nothing more is sent.
      const more = () =>
        one.alone!(
          ['favourite.removed'],
          async (repos) => {
            await repos.favourites.toggle(USERS.youssef, LISTINGS.table, 7);
            return repos.favourites.listIds(USERS.youssef);
          },
          USERS.youssef,
        );
      await observingQueries(async (sent) => {
        await assert.rejects(more(), /asked for a statement after its one statement/);
        assert.equal(sent.length, 1, sent.join('\n'));
      });
    } finally {
      await Promise.all([one.close(), hooked.close()]);
    }
  });

  it('asks its connection for one query at a time, also for reads asked together that go the plain path (pg deprecates queueing them)', async () => {
    const one = openStore(database.url, { ...OPTIONS, poolSize: 1 });
    const inFlight = new Map<pg.Client, number>();
    let most = 0;
    const count = (client: pg.Client, _text: string, answered: unknown) => {
      if (!(answered instanceof Promise)) return;
      inFlight.set(client, (inFlight.get(client) ?? 0) + 1);
      most = Math.max(most, inFlight.get(client)!);
      const done = () => void inFlight.set(client, inFlight.get(client)! - 1);
      void answered.then(done, done);
    };
    try {
      // A new connection: none of the three is prepared on it, so each goes alone, by name.
      const [user, ids, listing] = await watchingQueries(count, () =>
        one.transaction(
          (repos) =>
            Promise.all([repos.users.findById(USERS.amina), repos.favourites.listIds(USERS.sara), repos.listings.findById(LISTINGS.bike)]),
          USERS.sara,
        ),
      );
      assert.equal(user?.id, USERS.amina);
      assert.ok(Array.isArray(ids));
      assert.equal(listing?.id, LISTINGS.bike);
      assert.equal(most, 1);
    } finally {
      await one.close();
    }
  });

  it('sends the reads asked for together in one message (with BEGIN when they begin the transaction), each answered as it is alone', async () => {
    const one = openStore(database.url, { ...OPTIONS, poolSize: 1 });
    try {
      const reads = (repos: Store['repos']) =>
        Promise.all([repos.users.findById(USERS.amina), repos.favourites.listIds(USERS.sara), repos.listings.findById(LISTINGS.bike)]);
      const work = (repos: Store['repos']) => repos.users.findById(USERS.youssef).then(() => reads(repos));
      const plain = await reads(store.repos);
      assert.ok(plain[0] && plain[2], 'each read found its row');
      assert.deepEqual(await one.transaction(work, USERS.sara), plain); // prepares them on the connection
      await observingQueries(async (sent) => {
        assert.deepEqual(await one.transaction(work, USERS.sara), plain);
        assert.equal(sent.length, 3, sent.join('\n'));
        assert.match(sent[1]!, /^execute souk_\d+\(\d+\); execute souk_\d+\(\d+\); execute souk_\d+\(\d+\)$/);
        assert.equal(sent[2], 'commit');
        // Asked for in the job that begins the transaction, they go with BEGIN and the lock. (Not
        // the listing: read a third time, it is cached, and its version check, new on the
        // connection, would go alone.)
        sent.length = 0;
        const opening = (repos: Store['repos']) => Promise.all([repos.users.findById(USERS.amina), repos.favourites.listIds(USERS.sara)]);
        assert.deepEqual(await one.transaction(opening, USERS.sara), plain.slice(0, 2));
        assert.equal(sent.length, 2, sent.join('\n'));
        assert.match(sent[0]!, /^begin; execute souk_writer_lock\(\d+\)(; execute souk_\d+\(\d+\)){2}$/);
      });
      // The second of two asked together fails (it waits for a lock past the statement timeout):
      // both fail, and the transaction with them; the same when they begin it.
      await failsOnLockedConversation(one, USERS.amina, async (repos, conversation) => {
        await repos.users.findById(USERS.youssef);
        return Promise.all([repos.users.findById(USERS.amina), repos.conversations.findById(conversation)]);
      });
      await failsOnLockedConversation(one, USERS.sara, (repos, conversation) =>
        Promise.all([repos.users.findById(USERS.amina), repos.conversations.findById(conversation)]),
      );
      // A job that fails in the job it asked its first read in: BEGIN's message has not left yet;
      // it leaves before the ROLLBACK, and no transaction stays open on the connection.
      const failed = one.transaction(async (repos) => {
        void repos.users.findById(USERS.amina).catch(() => {});
        throw new Error('refused before BEGIN left');
      }, USERS.sara);
      await assert.rejects(failed, /refused before BEGIN left/);
      assert.equal(await noTransactionOpen(one), true, 'no transaction left open');
      assert.deepEqual(await one.transaction(work, USERS.sara), plain, 'the connection went back to the pool usable');
    } finally {
      await one.close();
    }
  });

  it("finds who is closed among a conversation's participants, or a user and a listing's owner, through their keys, as closedAmong does", async () => {
    const conversation = await store.transaction(
      async (repos) => (await repos.conversations.create(LISTINGS.bike, USERS.sara, USERS.amina, 5)).id,
    );
    const both = [USERS.sara, USERS.amina];
    const disable = (ids: number[]) =>
      other.query('update users set disabled = (id = any($1::bigint[]))::int where id = any($2)', [ids, both]);
    try {
      const moderation = (repos: Store['repos']) => repos.moderation!;
      for (const closed of [[], [USERS.sara], [USERS.amina], both]) {
        await disable(closed);
        const plain = await store.transaction((repos) => moderation(repos).closedAmong(both), USERS.sara);
        const inConversation = await store.transaction((repos) => moderation(repos).closedInConversation!(conversation), USERS.sara);
        // Sara and the owner of amina's chair.
        const withOwner = await store.transaction(
          (repos) => moderation(repos).closedWithOwnerOf!(LISTINGS.aminasOwn, USERS.sara),
          USERS.sara,
        );
        for (const through of [inConversation, withOwner]) {
          assert.deepEqual(through.toSorted(), closed.toSorted());
          assert.deepEqual(through.toSorted(), plain.toSorted());
        }
        // No such listing: the user alone.
        const alone = await store.transaction((repos) => moderation(repos).closedWithOwnerOf!(999_999, USERS.sara), USERS.sara);
        assert.deepEqual(alone, closed.includes(USERS.sara) ? [USERS.sara] : []);
      }
      assert.deepEqual(await store.transaction((repos) => repos.moderation!.closedInConversation!(999_999)), []);
    } finally {
      await disable([]);
    }
  });

  it("sends a message in three messages (the conversation with its checks; the append with the reader's count; the events with COMMIT); a start asks for the listing with its check, one that creates its conversation writes its message with it, one on an open one asks for its retry and count with it, a read for the conversation with the message", async () => {
    const one = openStore(database.url, { ...OPTIONS, poolSize: 1 });
    try {
      const conId = await store.transaction(
        async (repos) => (await repos.conversations.create(LISTINGS.bike, USERS.youssef, USERS.amina, 5)).id,
      );
      let tempId = 1;
      const send = () =>
        sendMessage(one, USERS.youssef, { conId, listingId: null, text: 'hi', files: [], tempId: String(tempId++) }, LIMITS);
      assert.ok((await send()).ok); // prepares the statements on the connection
      await observingQueries(async (sent) => {
        const reply = await send();
        assert.ok(reply.ok && reply.value.tempId === '2', JSON.stringify(reply));
        assert.equal(sent.length, 3, sent.join('\n'));
        assert.match(sent[0]!, /^begin; execute souk_writer_lock\(\d+\)(; execute souk_\d+\([^)]*\)){3}$/);
        // The reader's log held, the message appended, their unread count: one message.
        assert.match(sent[1]!, /^execute souk_\d+\(\d+\); execute souk_\d+\(.*\$souk\$hi\$souk\$.*\); execute souk_\d+\(\d+, \d+, 0\)$/);
        assert.match(sent[2]!, /conversation\.unread.*"count":2\}\$souk\$, \d+\); commit$/);
        // A start: the listing and who of the caller and its owner is closed, in BEGIN's message.
        const sara = (await one.repos.users.findById(USERS.sara))!;
        const start = () =>
          startConversation(uncachedChat(one), sara, { listingId: LISTINGS.aminasOwn, text: 'hi', files: [], tempId: null }, LIMITS);
        assert.ok((await start()).ok); // prepares its statements on the connection
        sent.length = 0;
        assert.ok((await start()).ok);
        assert.match(sent[0]!, /^begin; execute souk_writer_lock\(\d+\)(; execute souk_\d+\([^)]*\)){2}$/);
        // On its open conversation: BEGIN's message; the owner (uncached here); the conversation with
        // the retry's message and the caller's unread count; the append with the owner's; the events with COMMIT.
        assert.equal(sent.length, 5, sent.join('\n'));
        // A start that creates its conversation: it goes with its message, its events with COMMIT.
        const leave = () => other.query('update conversations set sender_delete = 1 where listing_id = $1', [LISTINGS.aminasOwn]);
        await leave();
        assert.ok((await start()).ok); // prepares its statements on the connection
        await leave();
        sent.length = 0;
        assert.ok((await start()).ok);
        // BEGIN's message; the owner (uncached here); the conversation with its message; the events with COMMIT.
        assert.equal(sent.length, 4, sent.join('\n'));
        assert.match(sent[2]!, /nextval\('messages_id_seq'\)[\s\S]*insert into messages/);
        assert.match(sent[3]!, /^execute souk_\d+\(\d+, \$souk\$conversation\.new\$souk\$[\s\S]*; commit$/);
        // Marking it read: the conversation and the message in BEGIN's message too (once prepared).
        assert.ok((await markRead(one, USERS.amina, conId, 1)).ok);
        sent.length = 0;
        assert.deepEqual(await markRead(one, USERS.amina, conId, reply.ok ? reply.value.id : 0), { ok: true, changed: true });
        assert.match(sent[0]!, /^begin; execute souk_writer_lock\(\d+\)(; execute souk_\d+\([^)]*\)){2}$/);
      });
    } finally {
      await one.close();
    }
  });

  it("counts a read receipt's unread messages once the reader's log is free: one logged for them meanwhile is counted, and its count is not the last", async () => {
    const { amina, youssef } = USERS;
    const conId = await store.transaction(async (repos) => (await repos.conversations.create(LISTINGS.table, youssef, amina, 5)).id);
    const first = await sendMessage(store, youssef, { conId, listingId: null, text: 'one', files: [], tempId: null }, LIMITS);
    assert.ok(first.ok);
    // Another message from Youssef, halfway through its unit of work: stored, Amina's log held, not committed.
    await other.query('begin');
    await other.query(`insert into messages (con_id, source_id, message, type, is_read, created_at) values ($1, $2, 'two', 'text', 0, 6)`, [
      conId,
      youssef,
    ]);
    await other.query('select seq from event_sequences where user_id = $1 for no key update', [amina]);
    const read = markRead(store, amina, conId, first.value.id);
    const watcher = new pg.Client({ connectionString: database.url });
    await watcher.connect();
    try {
      const waiting = `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
      await until(async () => (await watcher.query<{ n: number }>(waiting)).rows[0]!.n > 0);
    } finally {
      await watcher.end();
    }
    await other.query('commit');
    assert.deepEqual(await read, { ok: true, changed: true });
    const counts = (await store.eventLog!.after(amina, 0, 100))
      .filter((e) => e.type === 'conversation.unread')
      .map((e) => (JSON.parse(e.payload) as { count: number }).count);
    assert.equal(counts.at(-1), 1, `'two' is unread (counts logged: ${counts.join(', ')})`);
  });

  it("opens or creates a start's conversation in one statement, the new one with its first message, as findOpen, create and append do", async () => {
    const { amina, sara, youssef } = USERS;
    const first = (sender: number, at: number): FirstMessage => ({
      sourceId: sender,
      text: 'hi',
      type: 'text',
      attachments: null,
      tempId: '7',
      createdAt: at,
    });
    // The plain path, in a transaction as a start runs it: of an open conversation, the retry's
    // message (the first message's temp_id) and the recipient's unread messages, asked after it.
    const plain = (listing: number, sender: number, recipient: number, at: number) =>
      store.transaction(async (repos): Promise<OpenedConversation> => {
        const open = await repos.conversations.findOpen(listing, sender, recipient);
        if (open) {
          const retried = (await repos.messages.findByTempId(open.id, sender, first(sender, at).tempId!)) ?? null;
          return { conversation: open, created: false, retried, unreadCount: await repos.conversations.unreadFrom(open.id, recipient) };
        }
        const created = await repos.conversations.create(listing, sender, recipient, at);
        const appended = await repos.messages.append({ conId: created.id, ...first(sender, at) });
        return { conversation: { ...created, lastMessageId: appended.id, updatedAt: at }, created: true, appended };
      }, sender);
    const joined = (listing: number, sender: number, recipient: number, at: number) =>
      store.transaction((repos) => repos.conversations.openOrCreate!(listing, sender, recipient, at, first(sender, at)), sender);
    const withoutIds = ({ conversation, created, appended }: OpenedConversation) => ({
      conversation: { ...conversation, id: 0, lastMessageId: 0 },
      created,
      appended: appended && { ...appended, id: 0, conId: 0 },
    });
    // Each returns what it stored, as reading it back gives it.
    const asStored = async ({ conversation, appended }: OpenedConversation) => {
      assert.deepEqual(await store.repos.conversations.findById(conversation.id), conversation);
      assert.deepEqual(await store.repos.messages.findById(appended!.id), appended);
      assert.equal(conversation.lastMessageId, appended!.id);
    };
    const lastMessageId = async () => (await other.query<{ id: string }>('select last_value as id from messages_id_seq')).rows[0]!.id;

    // None open: both create the same conversation and message (but their ids and sender); then both find it.
    const created = await joined(LISTINGS.draft, youssef, amina, 11);
    const createdPlain = await plain(LISTINGS.draft, sara, amina, 11);
    assert.equal(created.created, true);
    await asStored(created);
    await asStored(createdPlain);
    const plainAsYoussef = withoutIds(createdPlain);
    assert.deepEqual(withoutIds(created), {
      ...plainAsYoussef,
      conversation: { ...plainAsYoussef.conversation, senderId: youssef },
      appended: { ...plainAsYoussef.appended!, sourceId: youssef },
    });
    const idBefore = await lastMessageId();
    // Open: youssef's first message carries the temp_id a retry sends again; nothing of amina's is unread.
    const found = { conversation: created.conversation, created: false, retried: created.appended, unreadCount: 0 };
    assert.deepEqual(await joined(LISTINGS.draft, youssef, amina, 12), found);
    assert.deepEqual(await plain(LISTINGS.draft, youssef, amina, 12), found);
    assert.equal(await lastMessageId(), idBefore, 'a start on an open conversation takes no message id');
    // Two of amina's messages, one read; and a start whose temp_id nothing stored.
    const conId = created.conversation.id;
    for (const [text, isRead] of [
      ['one', 1],
      ['two', 0],
    ] as const) {
      const { id } = await store.repos.messages.append({ conId, ...first(amina, 15), text, tempId: null });
      await other.query('update messages set is_read = $2 where id = $1', [id, isRead]);
    }
    const afterReplies = await store.repos.conversations.findById(conId);
    const withUnread = { conversation: afterReplies, created: false, retried: created.appended, unreadCount: 1 };
    assert.deepEqual(await joined(LISTINGS.draft, youssef, amina, 16), withUnread);
    assert.deepEqual(await plain(LISTINGS.draft, youssef, amina, 16), withUnread);
    const fresh = (tempId: string | null) =>
      store.transaction(
        (repos) => repos.conversations.openOrCreate!(LISTINGS.draft, youssef, amina, 17, { ...first(youssef, 17), tempId }),
        youssef,
      );
    assert.deepEqual(await fresh('8'), { ...withUnread, retried: null });
    assert.deepEqual(await fresh(null), { ...withUnread, retried: null });
    // One side left it: it is not open, and both create another.
    await other.query('update conversations set recipient_delete = 1 where id = $1', [created.conversation.id]);
    const again = await joined(LISTINGS.draft, youssef, amina, 13);
    assert.equal(again.created, true);
    assert.notEqual(again.conversation.id, created.conversation.id);
    await asStored(again);
    assert.deepEqual(await plain(LISTINGS.draft, youssef, amina, 14), {
      conversation: again.conversation,
      created: false,
      retried: again.appended,
      unreadCount: 0,
    });
  });

  it('writes any text as a literal PostgreSQL reads back as the same text', async () => {
    const texts = [
      '',
      "it's",
      'back\\slash',
      "it's \\ 'both'",
      '$',
      '$$',
      'ends in $',
      'ends in $souk',
      '$souk$; drop table users; --',
      'a $souk$ b',
      '$sou',
      "E'x'",
      'line\nbreak\ttab',
      'مرحبا 👋',
      '{"type":"message.new","text":"$100, 50% off; \'today\'"}',
    ];
    for (const text of texts) {
      const literal = quoted(text, other);
      const { rows } = await other.query(`select ${literal}::text as v`);
      assert.equal(rows[0].v, text, literal);
    }
    assert.equal(quoted('plain', other), '$souk$plain$souk$');
    assert.equal(quoted('has $souk', other), "'has $souk'");
  });

  it('joins nothing but BEGIN and the lock with DB_JOIN_STATEMENTS=false (PgBouncer tracking named statements)', async () => {
    const unjoined = openStore(database.url, { ...OPTIONS, poolSize: 1, joinStatements: false });
    try {
      await observingQueries(async (sent) => {
        for (let round = 0; round < 2; round++) {
          assert.ok(Array.isArray(await unjoined.transaction((repos) => repos.favourites.listIds(USERS.youssef), USERS.sara)));
        }
        assert.equal(sent.length, 6, sent.join('\n'));
        assert.equal(
          sent.filter((text) => text === `begin; select id, blocks from users where id = ${USERS.sara} for no key update`).length,
          2,
        );
        assert.ok(sent.every((text) => !text.includes('execute')));
      });
    } finally {
      await unjoined.close();
    }
  });

  it("reads with the writer's lock whether the writer is party to a block, and checks only then", async () => {
    // The lock goes with the first statement: a read before the check, as a message's conversation.
    const between = (writer: number | undefined) =>
      store.transaction(async (repos) => {
        await repos.users.findById(USERS.youssef);
        return repos.blocks.between(USERS.sara, USERS.youssef);
      }, writer);
    const count = async (id: number) => Number((await other.query('select blocks from users where id = $1', [id])).rows[0].blocks);
    assert.deepEqual([await between(USERS.sara), await between(undefined)], [false, false]);
    await store.transaction((repos) => repos.blocks.blockUser(USERS.youssef, USERS.sara, 1));
    assert.deepEqual([await count(USERS.sara), await count(USERS.youssef)], [1, 1]);
    assert.deepEqual([await between(USERS.sara), await between(USERS.youssef), await between(undefined)], [true, true, true]);
    await store.transaction((repos) => repos.blocks.unblockUser(USERS.youssef, USERS.sara));
    assert.deepEqual([await count(USERS.sara), await count(USERS.youssef)], [0, 0]);
    assert.deepEqual([await between(USERS.sara), await between(undefined)], [false, false]);
    // The fast path trusts the count: a block row it does not count is not looked for by a writer at 0.
    await other.query('insert into user_blocks (blocker_id, blocked_id, created_at) values ($1, $2, 1)', [USERS.youssef, USERS.sara]);
    assert.deepEqual([await between(USERS.sara), await between(undefined)], [false, true]);
    await other.query('delete from user_blocks');
  });

  it("writes the event log's and the outboxes' rows with the next message, as they are written alone", async () => {
    const mail = { delayMs: 60_000, onlineHere: () => false };
    // One connection: the first send prepares its statements there, each sent alone (the plain path).
    const one = openStore(database.url, { ...OPTIONS, poolSize: 1, webhookUrls: ['https://hooks.example/souk'], push: true, mail });
    for (const user of [USERS.youssef, USERS.sara]) {
      await other.query(
        `insert into push_devices (token, user_id, events, registered_at, session, session_expires_at) values ($1, $2, '[]', 1, 's', 2)`,
        [`ExponentPushToken[${user}]`, user],
      );
    }
    // One message to `recipient` in a new conversation, and its event (the log, a webhook, a push, a mail).
    const send = (sender: number, recipient: number, listing: number) =>
      one.transaction(async (repos) => {
        const con = await repos.conversations.create(listing, sender, recipient, 7);
        const text = "it's \\ 'quoted'";
        const message = await repos.messages.append({
          conId: con.id,
          sourceId: sender,
          text,
          type: 'text',
          attachments: null,
          tempId: null,
          createdAt: 8,
        });
        await repos.events!.record(recipient, { type: 'message.new', message }, 9);
        return repos.favourites.listIds(sender);
      }, sender);
    try {
      await observingQueries(async (sent) => {
        await send(USERS.amina, USERS.youssef, LISTINGS.bike);
        // begin+lock, the lock prepared, conversation, message, webhook, event log, push, mail, favourites, commit.
        assert.equal(sent.length, 10, sent.join('\n'));
        sent.length = 0;
        await send(USERS.amina, USERS.sara, LISTINGS.aminasOwn);
        // begin+lock+conversation, message, [the four writes + favourites], commit.
        assert.equal(sent.length, 4, sent.join('\n'));
        assert.match(sent[2]!, /^(execute souk_\d+\([^;]*\); ){4}execute souk_\d+\(\d+\)$/s);
      });
    } finally {
      await one.close();
    }
    // The rows of the sends above: their times are 7 to 9, other tests' are now's.
    const rows = async (table: string, user: number, columns: string) =>
      (await other.query(`select ${columns} from ${table} where user_id = $1 and created_at < 100 order by 1`, [user])).rows;
    for (const [table, columns] of [
      ['events', 'type, payload, created_at'],
      ['webhook_outbox', 'url, type, payload, created_at, status'],
      ['push_outbox', 'payload, created_at, status'],
      ['mail_outbox', 'created_at, status, next_attempt_at'],
    ] as const) {
      const [alone, joined] = [await rows(table, USERS.youssef, columns), await rows(table, USERS.sara, columns)];
      assert.equal(alone.length, 1, table);
      const mask = (r: Record<string, unknown>) => JSON.stringify(r).replace(/(id|conId|con_id|listingId|recipientId)\\*":\d+/g, '');
      assert.deepEqual(joined.map(mask), alone.map(mask), table);
    }
  });
});
