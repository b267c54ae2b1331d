/**
 * A conversation's kept message count (migration 035): what the first page's `pagination.total`
 * reads (messages.countOf after 0) must be what counting the messages gives, whichever way they were
 * written or removed: the repository's append, rows inserted directly (an import), a removed row,
 * another conversation's cascade, and a migration run on a database that already holds messages.
 * On SQLite, and on PostgreSQL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/index.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations/index.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations/index.js';
import { marketplaceStore } from '../helpers/marketplace-store.js';
import { LISTINGS, messageRow, USERS } from '../helpers/fixtures.js';

/** The plain path: the messages counted. */
async function counted(store: Store, conId: number): Promise<number> {
  const row = await store.db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('con_id', '=', conId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The kept count, as the first page reads it, beside the plain count. */
async function bothCounts(store: Store, conId: number): Promise<[number, number]> {
  return [await store.repos.messages.countOf(conId, 0), await counted(store, conId)];
}

const append = (store: Store, conId: number, text: string) =>
  store.repos.messages.append({ conId, sourceId: USERS.sara, text, type: 'text', attachments: [], tempId: null, createdAt: Date.now() });

describe("a conversation's kept message count (migration 035)", () => {
  it('is the count of its messages after appends, direct inserts and removals; a range after an id is still counted', async (t) => {
    const store = await marketplaceStore(t);
    const at = Date.now();
    const conId = (await store.repos.conversations.create(LISTINGS.bike, USERS.sara, USERS.amina, at)).id;
    const other = (await store.repos.conversations.create(LISTINGS.table, USERS.sara, USERS.youssef, at)).id;
    assert.deepEqual(await bothCounts(store, conId), [0, 0]);

    await store.db
      .insertInto('messages')
      .values([1, 2, 3, 4, 5].map((i) => messageRow(conId, USERS.amina, { created_at: at + i })))
      .execute();
    const first = await append(store, conId, 'one');
    await append(store, conId, 'two');
    await store.db.insertInto('messages').values(messageRow(other, USERS.youssef)).execute();
    assert.deepEqual(await bothCounts(store, conId), [7, 7]);

    await store.db.deleteFrom('messages').where('id', '=', first.id).execute();
    assert.deepEqual(await bothCounts(store, conId), [6, 6]);
    // After an id, the messages are counted as before: one, 'two'.
    assert.equal(await store.repos.messages.countOf(conId, first.id), 1);

    // A conversation removed takes its messages along (cascade); the other conversation's count stays.
    await store.db.deleteFrom('conversations').where('id', '=', conId).execute();
    assert.deepEqual(await bothCounts(store, other), [1, 1]);
  });

  it('counts the messages a database already holds when the migration runs', async (t) => {
    const store = await marketplaceStore(t);
    const conId = (await store.repos.conversations.create(LISTINGS.bike, USERS.sara, USERS.amina, Date.now())).id;
    const migration = (store.dialect === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS)['035-conversation-message-count']!;
    await migration.down!(store.db);
    await store.db
      .insertInto('messages')
      .values([1, 2, 3].map(() => messageRow(conId, USERS.sara)))
      .execute();
    await migration.up(store.db);
    assert.deepEqual(await bothCounts(store, conId), [3, 3]);
    await append(store, conId, 'after');
    assert.deepEqual(await bothCounts(store, conId), [4, 4]);
  });
});
