/**
 * PostgreSQL's unit of work (src/store/postgres/transaction.ts): BEGIN and the writer's lock go in
 * one message, and the lock is really held until the transaction ends. The SQLite store has no
 * per-user lock (its write batch runs one member at a time), so these run on PostgreSQL only.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshDatabase, TEST_POSTGRES_URL, type TestDatabase } from '../../helpers/database.js';
import type { Store } from '../../../src/store/index.js';
import { openMarketplaceStore } from '../../helpers/store.js';
import { beginStatement } from '../../../src/store/postgres/transaction.js';
import { LISTINGS, USERS } from '../../helpers/fixtures.js';

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

  it("holds the writer's lock until the transaction ends, and no other user's", async () => {
    await store.transaction(async () => {
      assert.equal(await lockFree(USERS.sara), false, "the writer's row is not locked");
      assert.equal(await lockFree(USERS.youssef), true, "another user's row is locked");
    }, USERS.sara);
    assert.equal(await lockFree(USERS.sara), true, 'the lock outlived the transaction');
  });

  it('takes no lock without a writer', async () => {
    await store.transaction(async () => {
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
        store.transaction(async () => 'never', USERS.sara),
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

  it("reads with the writer's lock whether the writer is party to a block, and checks only then", async () => {
    const between = (writer: number | undefined) => store.transaction((repos) => repos.blocks.between(USERS.sara, USERS.youssef), writer);
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
});
