/**
 * PostgreSQL's unit of work (src/store/postgres/transaction.ts): BEGIN, the writer's lock and the
 * first statement go in one message, the first statement's answer is the one it gets alone, and
 * the lock is really held until the transaction ends. The SQLite store has no
 * per-user lock (its write batch runs one member at a time), so these run on PostgreSQL only.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshDatabase, TEST_POSTGRES_URL, type TestDatabase } from '../../helpers/database.js';
import type { Store } from '../../../src/store/index.js';
import { openMarketplaceStore } from '../../helpers/store.js';
import { beginStatement } from '../../../src/store/postgres/transaction.js';
import { inlined } from '../../../src/store/postgres/transaction-runner.js';
import { LISTINGS, USERS } from '../../helpers/fixtures.js';
import { Kysely, PostgresDialect } from 'kysely';
import { openStore } from '../../../src/store/index.js';
import { postgresRunner } from '../../../src/store/postgres/runner.js';
import { postgresRepositories } from '../../../src/store/postgres/repositories.js';
import { ListingCache } from '../../../src/store/common/listing-cache.js';
import type { Database } from '../../../src/store/common/schema.js';
import type { Repositories } from '../../../src/domain/ports.js';

const OPTIONS = { poolSize: 2, statementTimeoutMs: 2000, connectTimeoutMs: 2000 };

describe('the writer lock statement', () => {
  it('is a plain BEGIN without a writer, and BEGIN plus the row lock (with the blocks the writer is party to) with one', () => {
    assert.equal(beginStatement(undefined), 'begin');
    assert.equal(beginStatement(42), 'begin; select id, blocks from users where id = 42 for no key update');
  });

  it('takes only an integer into its SQL', () => {
    for (const bad of [1.5, NaN, Infinity, 2 ** 53, '1; drop table users' as unknown as number]) {
      assert.throws(() => beginStatement(bad), TypeError);
    }
  });
});

describe('a first statement written out to go with BEGIN', () => {
  const query = (sql: string, parameters: unknown[]) => ({ sql, parameters }) as unknown as Parameters<typeof inlined>[0];

  it('takes integers and nulls into the text, a negative one in parentheses, $10 not as $1', () => {
    const twelve = Array.from({ length: 12 }, (_, i) => i + 1);
    assert.equal(inlined(query('select a from t where x = $1 and y = $2', [7, null])), 'select a from t where x = 7 and y = null');
    assert.equal(inlined(query('select a - $1 from t', [-3])), 'select a - (-3) from t');
    assert.equal(inlined(query(`select ${twelve.map((n) => `$${n}`).join(', ')}`, twelve)), 'select 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12');
  });

  it('reads no $n inside quoted text or a quoted name', () => {
    assert.equal(
      inlined(query(`select 'it''s $1', "a""$1" from t where x = $1 and y = '$2'`, [5])),
      `select 'it''s $1', "a""$1" from t where x = 5 and y = '$2'`,
    );
  });

  it('quotes text with the quoting it is given, and keeps a string with NUL as a parameter', () => {
    const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;
    assert.equal(inlined(query('insert into t values ($1, $2)', ["it's", 3]), quote), "insert into t values ('it''s', 3)");
    assert.equal(inlined(query('insert into t values ($1)', ['a\u0000b']), quote), undefined);
  });

  it('leaves a statement with text (unquoted), a fraction or a quote in its SQL to go on its own', () => {
    for (const [sql, parameters] of [
      ['select a from t where x = $1', ['1; drop table users']],
      ['select a from t where x = $1', [1.5]],
      ['select a from t where x = $1', [2 ** 53]],
      ['select a from t where x = $1', [true]],
      ["select E'a\\'$1' from t where x = $1", [1]],
      ['select a from t -- $1', [1]],
      ['select a /* $1 */ from t', [1]],
      ["select 'a from t where x = $1", [1]],
      ['select $$a$$ from t where x = $1', [1]],
      ['select 1; select $1', [1]],
    ] as [string, unknown[]][]) {
      assert.equal(inlined(query(sql, parameters)), undefined, sql);
    }
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
      await repos.listings.statusOf(LISTINGS.bike);
      assert.equal(await lockFree(USERS.sara), false, "the writer's row is not locked");
      assert.equal(await lockFree(USERS.youssef), true, "another user's row is locked");
    }, USERS.sara);
    assert.equal(await lockFree(USERS.sara), true, 'the lock outlived the transaction');
  });

  it('takes no lock without a writer', async () => {
    await store.transaction(async (repos) => {
      await repos.listings.statusOf(LISTINGS.bike);
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
        store.transaction((repos) => repos.listings.statusOf(LISTINGS.bike), USERS.sara),
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

  it('sends BEGIN, the lock and the first statement in one message, and answers that statement as it is answered alone', async () => {
    const sent: string[] = [];
    const query = pg.Client.prototype.query;
    // Observes what the store's clients send (the other client is this test's own).
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      if (this !== other) {
        const q = args[0] as string | { text: string };
        sent.push(typeof q === 'string' ? q : q.text);
      }
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      const conversation = await store.transaction(async (repos) => {
        const con = await repos.conversations.create(LISTINGS.bike, USERS.sara, USERS.youssef, 5);
        return con.id;
      }, USERS.sara);
      const plain = {
        status: await store.repos.listings.statusOf(LISTINGS.bike),
        listing: await store.repos.listings.findById(LISTINGS.bike),
        conversation: await store.repos.conversations.findById(conversation),
        favourites: await store.repos.favourites.listIds(USERS.youssef),
      };
      sent.length = 0;
      const first = {
        status: await store.transaction((repos) => repos.listings.statusOf(LISTINGS.bike), USERS.sara),
        listing: await store.transaction((repos) => repos.listings.findById(LISTINGS.bike), USERS.sara),
        conversation: await store.transaction((repos) => repos.conversations.findById(conversation), USERS.youssef),
        favourites: await store.transaction((repos) => repos.favourites.listIds(USERS.youssef)),
      };
      assert.deepEqual(first, plain);
      assert.ok(plain.status && plain.listing && plain.conversation, 'each read found its row');
      // Each transaction: one message with BEGIN, the lock and the read, then COMMIT.
      assert.equal(sent.length, 8, sent.join('\n'));
      for (const [i, text] of sent.entries()) {
        if (i % 2 === 1) assert.equal(text, 'commit');
        else assert.match(text, /^begin; (select id, blocks from users where id = \d+ for no key update; )?select /, text);
      }
      // A transaction that runs no statement sends nothing.
      sent.length = 0;
      assert.equal(await store.transaction(async () => 'nothing', USERS.sara), 'nothing');
      assert.deepEqual(sent, []);
    } finally {
      pg.Client.prototype.query = query;
    }
  });

  it("reads with the writer's lock whether the writer is party to a block, and checks only then", async () => {
    // The lock goes with the first statement: a read before the check, as a message's conversation.
    const between = (writer: number | undefined) =>
      store.transaction(async (repos) => {
        await repos.listings.statusOf(LISTINGS.bike);
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

  it("writes the event log's and the outboxes' rows with the next message, as the plain runner writes them", async () => {
    const urls = ['https://hooks.example/souk'];
    const mail = { delayMs: 60_000, onlineHere: () => false };
    const options = { ...OPTIONS, webhookUrls: urls, push: true, mail };
    const pipelined = openStore(database.url, options);
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const plain = postgresRepositories(postgresRunner(db, pool, true), new ListingCache(), urls, true, mail);
    // One message to `recipient` in a new conversation, and its event (the log, a webhook, a push, a mail).
    const send = async (repos: Repositories, sender: number, recipient: number, listing: number) => {
      const con = await repos.conversations.create(listing, sender, recipient, 7);
      const message = await repos.messages.append({
        conId: con.id,
        sourceId: sender,
        text: "it's \\ 'quoted'",
        type: 'text',
        attachments: null,
        tempId: null,
        createdAt: 8,
      });
      await repos.events!.record(recipient, { type: 'message.new', message }, 9);
      return repos.favourites.listIds(sender);
    };
    for (const user of [USERS.youssef, USERS.sara]) {
      await other.query(
        `insert into push_devices (token, user_id, events, registered_at, session, session_expires_at) values ($1, $2, '[]', 1, 's', 2)`,
        [`ExponentPushToken[${user}]`, user],
      );
    }
    const sent: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const q = args[0] as string | { text: string };
      sent.push(typeof q === 'string' ? q : q.text);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      await send(plain, USERS.amina, USERS.youssef, LISTINGS.bike);
      sent.length = 0;
      await pipelined.transaction((repos) => send(repos, USERS.amina, USERS.sara, LISTINGS.aminasOwn), USERS.amina);
    } finally {
      pg.Client.prototype.query = query;
      await db.destroy();
      await pipelined.close();
    }
    // begin+lock+insert, append, [event writes + favourites read], commit.
    assert.equal(sent.length, 4, sent.join('\n'));
    assert.match(
      sent[2]!,
      /^insert into "webhook_outbox".*; with numbered as .*; insert into "push_outbox".*; insert into "mail_outbox".*; select /s,
    );
    const rows = async (table: string, user: number, columns: string) =>
      (await other.query(`select ${columns} from ${table} where user_id = $1 order by 1`, [user])).rows;
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
