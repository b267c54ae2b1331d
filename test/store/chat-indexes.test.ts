/**
 * The chat tables' indexes. Migration 006 (src/store/common/migrations/006-messages-by-sender.ts): one
 * index serves the unread count and the temp_id retry lookup, and still refuses a second message
 * with one sender's temp_id. Migration 007: conversations keep only the index a start reads.
 * Migration 014: a conversation's page of messages is read in id order, without a sort. Migration
 * 034: an offer's checks read the conversation's offers alone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { freshDatabase, type TestDatabase } from '../helpers/database.js';
import type { Store } from '../../src/store/index.js';
import { openMarketplaceStore } from '../helpers/store.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations/index.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations/index.js';
import { LISTINGS, messageRow, USERS } from '../helpers/fixtures.js';

const OPTIONS = { poolSize: 2, statementTimeoutMs: 2000, connectTimeoutMs: 2000 };

describe('chat indexes (migrations 006, 007, 010, 014, 034)', () => {
  let database: TestDatabase;
  let store: Store;
  let conId: number;

  before(async () => {
    database = await freshDatabase();
    store = await openMarketplaceStore(database.url, OPTIONS);
    const now = Date.now();
    conId = (await store.repos.conversations.create(LISTINGS.bike, USERS.sara, USERS.amina, now)).id;
  });

  after(async () => {
    await store.close();
    await database.drop();
  });

  const message = (tempId: string | null, isRead = 0) => messageRow(conId, USERS.sara, { temp_id: tempId, is_read: isRead });
  const indexesOf = async (table: string) => {
    const names =
      store.dialect === 'sqlite'
        ? sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = ${table} and sql is not null`
        : sql<{
            name: string;
          }>`select indexname as name from pg_indexes where tablename = ${table} and schemaname = current_schema() and indexname <> ${table + '_pkey'}`;
    return (await names.execute(store.db)).rows.map((r) => r.name).sort();
  };
  const messageIndexes = () => indexesOf('messages');

  it('conversations keep the open-conversation index, which a start reads, and one per participant for GET my/chat (010)', async () => {
    assert.deepEqual(await indexesOf('conversations'), [
      'conversations_by_listing', // the console's conversations of a listing (033)
      'conversations_by_recipient',
      'conversations_by_sender',
      'conversations_open_unique',
    ]);
  });

  it('replaces messages_unread and messages_retry_unique, and keeps the stored messages through down and up', async () => {
    assert.deepEqual(await messageIndexes(), ['messages_by_conversation', 'messages_by_sender', 'messages_offers']);
    await store.db
      .insertInto('messages')
      .values([message('1'), message(null), message(null, 1)])
      .execute();
    const migration = (store.dialect === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS)['006-messages-by-sender']!;
    await migration.down!(store.db);
    assert.deepEqual(await messageIndexes(), ['messages_by_conversation', 'messages_offers', 'messages_retry_unique', 'messages_unread']);
    await migration.up(store.db);
    assert.deepEqual(await messageIndexes(), ['messages_by_conversation', 'messages_by_sender', 'messages_offers']);
    assert.equal((await store.db.selectFrom('messages').select('id').execute()).length, 3);
  });

  it('refuses a second unread message with the same sender and temp_id; messages without one never collide', async () => {
    await assert.rejects(store.db.insertInto('messages').values(message('1')).execute(), /unique|duplicate/i);
    await store.db
      .insertInto('messages')
      .values([message(null), message(null)])
      .execute();
  });

  it('finds a message by temp_id whether read or not, and counts only the unread', async () => {
    await store.db.insertInto('messages').values(message('2', 1)).execute();
    const found = await Promise.all(['1', '2', '3'].map((t) => store.repos.messages.findByTempId(conId, USERS.sara, t)));
    assert.deepEqual(
      found.map((m) => m?.isRead),
      [false, true, undefined],
    );
    assert.equal(await store.repos.conversations.unreadFrom(conId, USERS.sara), 4);
  });

  it('on SQLite, both lookups search the index instead of scanning', async (t) => {
    if (store.dialect !== 'sqlite') return t.skip('SQLite query plans');
    for (const lookup of [
      sql`explain query plan select count(*) from messages where con_id = 1 and source_id = 2 and is_read = 0`,
      sql`explain query plan select * from messages where con_id = 1 and source_id = 2 and is_read = 1 and temp_id = '3'`,
    ]) {
      const plan = (await lookup.execute(store.db)).rows as { detail: string }[];
      assert.match(
        plan.map((r) => r.detail).join('; '),
        /USING (COVERING )?INDEX messages_by_sender \(con_id=\? AND source_id=\? AND is_read=\?/,
      );
    }
  });

  it("reads a conversation's page of messages in id order from its index, without sorting (014)", async (t) => {
    const page = [...Array(5)].map((_, i) => ({ ...message(null), created_at: i }));
    await store.db.insertInto('messages').values(page).execute();
    const ids = (await store.db.selectFrom('messages').select('id').where('con_id', '=', conId).orderBy('id', 'desc').execute()).map(
      (r) => r.id,
    );
    const read = await store.repos.messages.pageOf(conId, 0, 0, 3);
    assert.deepEqual(
      read.map((m) => m.id),
      ids.slice(0, 3),
    );
    if (store.dialect !== 'sqlite') return t.skip('SQLite query plans');
    const plan = (
      await sql<{
        detail: string;
      }>`explain query plan select id from messages where con_id = ${conId} and id > 0 order by id desc limit 50`.execute(store.db)
    ).rows
      .map((r) => r.detail)
      .join('; ');
    assert.match(plan, /USING (COVERING )?INDEX messages_by_conversation \(con_id=\? AND id>\?\)/);
    assert.doesNotMatch(plan, /TEMP B-TREE/);
  });

  it("reads a sender's offers of the day, and a conversation's pending offers, from the offers' own index (034)", async () => {
    // As store/common/offers.ts writes them: `type = 'offer'` a literal, the pending offers unordered.
    const reads = [
      sql`select count(*) from messages where con_id = ${conId} and source_id = ${USERS.sara} and type = 'offer' and created_at >= ${0}`,
      sql`select id from messages where con_id = ${conId} and type = 'offer' and meta like '%"status":"pending"%'`,
    ];
    for (const read of reads) {
      if (store.dialect === 'sqlite') {
        const plan = (await sql<{ detail: string }>`explain query plan ${read}`.execute(store.db)).rows.map((r) => r.detail).join('; ');
        assert.match(plan, /USING (COVERING )?INDEX messages_offers \(con_id=\?/);
        continue;
      }
      // A table this small is read whole; with sequential reads priced out the plan shows whether the index serves.
      const plan = await store.db.transaction().execute(async (tx) => {
        await sql`set local enable_seqscan = off`.execute(tx);
        return (await sql<{ 'QUERY PLAN': string }>`explain ${read}`.execute(tx)).rows.map((r) => r['QUERY PLAN']).join('; ');
      });
      assert.match(plan, /messages_offers/);
    }
  });
});
