/**
 * PostgreSQL runs the request path's queries as named statements (src/store/postgres/runner.ts):
 * prepared once per connection, unless DB_PREPARED_STATEMENTS is false. With one pooled
 * connection, pg_prepared_statements on it shows which were prepared.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { sql } from 'kysely';
import { freshDatabase, TEST_POSTGRES_URL, type TestDatabase } from '../../helpers/database.js';
import type { Store } from '../../../src/store/index.js';
import { openMarketplaceStore } from '../../helpers/store.js';
import { LISTINGS, USERS } from '../../helpers/fixtures.js';
import { deleteListings } from '../../../src/domain/catalog.js';

const ONE_CONNECTION = { poolSize: 1, statementTimeoutMs: 2000, connectTimeoutMs: 2000 };

/** The names of the statements prepared on the store's one connection. */
async function preparedNames(store: Store): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from pg_prepared_statements order by name`.execute(store.db);
  return rows.map((r) => r.name);
}

/**
 * A listing and a user read through the request path: in a transaction, and outside one. A
 * transaction's first statement goes written out with its BEGIN (transaction-runner.ts), so the
 * listing is its second.
 */
async function readThroughRequestPath(store: Store) {
  const listing = await store.transaction(async (repos) => {
    await repos.users.findById(USERS.youssef);
    return repos.listings.findById(LISTINGS.bike);
  }, USERS.amina);
  const user = await store.repos.users.findById(USERS.amina);
  return { listing, user };
}

describe('PostgreSQL named statements', { skip: TEST_POSTGRES_URL ? false : 'PostgreSQL only' }, () => {
  let database: TestDatabase;
  let admin: pg.Client;

  before(async () => {
    database = await freshDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });

  after(async () => {
    await admin.end();
    await database.drop();
  });

  it('prepares each query of the request path once per connection, and reuses it', async () => {
    const store = await openMarketplaceStore(database.url, ONE_CONNECTION);
    try {
      const first = await readThroughRequestPath(store);
      const prepared = await preparedNames(store);
      assert.ok(prepared.length >= 2, `prepared: ${prepared.join(', ')}`);
      assert.ok(
        prepared.every((name) => name.startsWith('souk_')),
        prepared.join(', '),
      );
      assert.equal(first.listing?.id, LISTINGS.bike);
      assert.equal(first.user?.id, USERS.amina);

      assert.deepEqual(await readThroughRequestPath(store), first);
      assert.deepEqual(await preparedNames(store), prepared, 'the same queries were prepared again under new names');
    } finally {
      await store.close();
    }
  });

  it("prepares the favourites list's page and count, which run outside units of work", async () => {
    const store = await openMarketplaceStore(database.url, ONE_CONNECTION);
    try {
      const before = await preparedNames(store);
      const read = async () => [
        await store.favouriteLists.shownPage(USERS.amina, 0, 20),
        await store.favouriteLists.countShown(USERS.amina),
      ];
      const first = await read();
      const prepared = await preparedNames(store);
      assert.equal(prepared.length, before.length + 2, `prepared: ${prepared.join(', ')}`);
      assert.deepEqual(await read(), first);
      assert.deepEqual(await preparedNames(store), prepared);
    } finally {
      await store.close();
    }
  });

  it("reads the chat list's listings not cached in one statement, each as it reads alone", async () => {
    const store = await openMarketplaceStore(database.url, ONE_CONNECTION);
    const alone = await openMarketplaceStore(database.url, ONE_CONNECTION);
    try {
      const { amina, youssef, sara } = USERS;
      await store.transaction(async (repos) => {
        // Amina's list: three listings she asks about, and her own chair twice (two buyers).
        const started: Array<[number, number, number]> = [
          [LISTINGS.bike, amina, youssef],
          [LISTINGS.table, amina, sara],
          [LISTINGS.draft, amina, youssef],
          [LISTINGS.aminasOwn, youssef, amina],
          [LISTINGS.aminasOwn, sara, amina],
        ];
        for (const [listingId, senderId, recipientId] of started) {
          const { id } = await repos.conversations.create(listingId, senderId, recipientId, 1_700_000_000);
          await repos.messages.append({
            conId: id,
            sourceId: senderId,
            text: 'Hello',
            type: 'text',
            attachments: null,
            tempId: null,
            createdAt: 1_700_000_000,
          });
        }
      }, amina);
      // A removed listing: its conversation stays, without it.
      assert.deepEqual((await deleteListings(store, [LISTINGS.draft])).deleted, [LISTINGS.draft]);

      const page = await store.repos.conversations.listFor(amina, 0, 20, false);
      assert.equal(page.length, 5);
      const statements = (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(store.db)).rows;
      const listingReads = statements.filter(({ statement }) => /left join "listing_details"/.test(statement));
      assert.equal(listingReads.length, 1, listingReads.map((r) => r.statement).join('\n'));
      assert.match(listingReads[0]!.statement, /= any\(cast\(\$1 as bigint\[\]\)\)/);
      for (const row of page) {
        const expected =
          row.conversation.listingId === LISTINGS.draft ? undefined : await alone.repos.listings.findById(row.conversation.listingId);
        assert.deepEqual(row.listing, expected, `listing ${row.conversation.listingId}`);
      }
      assert.deepEqual(await store.repos.conversations.listFor(amina, 0, 20, false), page, 'read again, partly from the cache');
    } finally {
      await store.close();
      await alone.close();
    }
  });

  it('keeps working when a migration adds a column to a table it reads (a rolling upgrade)', async () => {
    const store = await openMarketplaceStore(database.url, ONE_CONNECTION);
    try {
      const before = await readThroughRequestPath(store);
      await admin.query('alter table users add column nickname text');
      await admin.query('alter table listings add column subtitle text');
      try {
        assert.deepEqual(await readThroughRequestPath(store), before);
      } finally {
        await admin.query('alter table users drop column nickname');
        await admin.query('alter table listings drop column subtitle');
      }
    } finally {
      await store.close();
    }
  });

  it('drops a connection that died inside a transaction: the next transaction gets a new one', async () => {
    const store = await openMarketplaceStore(database.url, ONE_CONNECTION);
    try {
      const backend = async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(store.db)).rows[0]!.pid;
      const first = await backend();
      await assert.rejects(
        store.transaction(async (repos) => {
          await admin.query('select pg_terminate_backend($1)', [first]);
          return repos.users.findById(USERS.amina);
        }, USERS.amina),
      );
      const { user } = await readThroughRequestPath(store);
      assert.equal(user?.id, USERS.amina);
      assert.notEqual(await backend(), first);
    } finally {
      await store.close();
    }
  });

  it('prepares nothing with preparedStatements off (DB_PREPARED_STATEMENTS=false)', async () => {
    const store = await openMarketplaceStore(database.url, { ...ONE_CONNECTION, preparedStatements: false });
    try {
      const read = await readThroughRequestPath(store);
      assert.equal(read.listing?.id, LISTINGS.bike);
      assert.equal(read.user?.id, USERS.amina);
      assert.deepEqual(await preparedNames(store), []);
    } finally {
      await store.close();
    }
  });
});
