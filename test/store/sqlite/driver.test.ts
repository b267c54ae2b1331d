/**
 * The SQLite engine behind Souk (src/store/sqlite/driver.ts): its rows, read as arrays and made
 * into objects by Souk, are the engine's own object rows, value for value and key for key, and a
 * read outside any transaction never sees what an open one has not committed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, type SqliteConnection } from '../../../src/store/sqlite/driver.js';
import type { Store } from '../../../src/store/index.js';
import { openMarketplaceStore } from '../../helpers/store.js';
import { LISTINGS, messageRow, USERS } from '../../helpers/fixtures.js';

const require = createRequire(import.meta.url);

interface EngineRows {
  rows(sql: string, params: unknown[]): Record<string, unknown>[];
  close(): void;
}

/** The engine's own rows, as plain objects, from a second connection. */
function engineRows(path: string): EngineRows {
  // Typed here: the project's Node.js types are Node.js 20's, which has no node:sqlite.
  type Database = { prepare(sql: string): { all(...params: unknown[]): object[] }; close(): void };
  const { DatabaseSync } = require('node:sqlite') as { DatabaseSync: new (path: string) => Database };
  const db = new DatabaseSync(path);
  return {
    rows: (sql, params) =>
      db
        .prepare(sql)
        .all(...(params as []))
        .map((row) => ({ ...row })),
    close: () => db.close(),
  };
}

const QUERIES: [sql: string, params: unknown[]][] = [
  ['select * from users order by id', []],
  ['select * from listings order by id', []],
  ['select * from listing_details order by listing_id', []],
  // The same name twice (the later value wins), names that are numbers, types and nulls.
  ["select 1 as a, 'two' as a, 3 as b", []],
  ['select 7 as "10", 8 as "2", \'x\' as z', []],
  ["select null as n, 1.5 as r, x'00ff' as blob, 9007199254740991 as big, '' as empty, 'é ✓ 🙂' as text", []],
  ['select id, login from users where id > ? order by id desc limit ?', [1, 2]],
  ['select id from users where id < 0', []],
];

describe('SQLite rows', () => {
  let dir: string;
  let store: Store;
  let connection: SqliteConnection;
  let engine: EngineRows;
  const expected = (sql: string, params: unknown[]) => engine.rows(sql, params);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'souk-driver-'));
    const path = join(dir, 'souk.db');
    store = await openMarketplaceStore(`sqlite:${path}`, { poolSize: 1, statementTimeoutMs: 2000, connectTimeoutMs: 2000 });
    connection = openSqlite(path, 2000);
    engine = engineRows(path);
  });

  after(async () => {
    engine.close();
    connection.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("are the engine's own rows, key for key in the same order", () => {
    for (const [sql, params] of QUERIES) {
      const ours = connection.prepare(sql).all(params) as Record<string, unknown>[];
      const theirs = expected(sql, params);
      assert.deepStrictEqual(ours, theirs, sql);
      assert.deepStrictEqual(ours.map(Object.keys), theirs.map(Object.keys), sql);
      assert.ok(theirs.length > 0 || sql.includes('id < 0'), `${sql} reads rows`);
    }
  });

  it('are the same rows when iterated', () => {
    for (const [sql, params] of QUERIES) {
      assert.deepStrictEqual([...connection.prepare(sql).iterate(params)], expected(sql, params), sql);
    }
  });

  it('as arrays are the rows’ values in the order selected', () => {
    // Not where the objects differ from the order selected: a name twice, names that are numbers.
    for (const [sql, params] of QUERIES.filter(([sql]) => !/ as a,| as "\d/.test(sql))) {
      assert.deepStrictEqual(connection.prepareArrays(sql).all(params), expected(sql, params).map(Object.values), sql);
    }
  });

  it('reads outside a transaction wait for one that is open, and never see what it has not committed', async () => {
    const before = await store.repos.favourites.listIds(USERS.sara);
    const conId = (await store.repos.conversations.create(LISTINGS.bike, USERS.sara, USERS.amina, 1)).id;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = store.db.transaction().execute(async (trx) => {
      await trx.insertInto('favourites').values({ user_id: USERS.sara, listing_id: LISTINGS.table, added_at: 1 }).execute();
      await trx.insertInto('messages').values(messageRow(conId, USERS.sara)).execute();
      await held;
    });
    // The transaction begins and writes; it stays open until released.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const reads: { favourites?: number[]; messages?: number } = {};
    const reading = Promise.all([
      store.repos.favourites.listIds(USERS.sara).then((ids) => (reads.favourites = ids)),
      // A page of messages is read as arrays (store/common/repositories.ts): the same wait.
      store.repos.messages.pageOf(conId, 0, 0, 50).then((page) => (reads.messages = page.length)),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(reads, {}, 'the reads waited for the open transaction');
    release();
    await transaction;
    await reading;
    assert.deepEqual(reads, { favourites: [...before, LISTINGS.table], messages: 1 });
  });
});
