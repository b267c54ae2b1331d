/**
 * The console's own reads (domain/staff/reads.ts, migration 033) on SQLite and PostgreSQL: what
 * they answer, and that each is index-backed or bounded, so that a page costs the same at 100,000
 * users and 1,000,000 messages: a listing's conversations, users by name and the reports against
 * a user read their index in order (no sort), and today's activity reads the last rows of the
 * primary key, never the whole table. PostgreSQL plans small tables with a scan, so its plans are
 * asked with sequential and bitmap scans discouraged (what it would choose on a large table).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type RawBuilder } from 'kysely';
import { freshDatabase, type TestDatabase } from '../helpers/database.js';
import type { Store } from '../../src/store/index.js';
import { openMarketplaceStore } from '../helpers/store.js';
import { LISTINGS, messageRow, USERS } from '../helpers/fixtures.js';

const OPTIONS = { poolSize: 2, statementTimeoutMs: 2000, connectTimeoutMs: 2000 };

describe("the console's reads (migration 033)", () => {
  let database: TestDatabase;
  let store: Store;

  before(async () => {
    database = await freshDatabase();
    store = await openMarketplaceStore(database.url, OPTIONS);
  });

  after(async () => {
    await store.close();
    await database.drop();
  });

  /** The plan's text: SQLite's details, PostgreSQL's lines with sequential scans off. */
  async function plan(query: RawBuilder<unknown>): Promise<string> {
    if (store.dialect === 'sqlite') {
      const rows = (await sql<{ detail: string }>`explain query plan ${query}`.execute(store.db)).rows;
      return rows.map((r) => r.detail).join('; ');
    }
    return store.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_bitmapscan = off`.execute(trx);
      const rows = (await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(trx)).rows;
      return rows.map((r) => r['QUERY PLAN']).join('; ');
    });
  }

  it("answers today's activity from a bounded window, a listing's conversations newest first and users by name in any case", async () => {
    const yesterday = Date.now() - 86_400_000;
    const old = await store.repos.conversations.create(LISTINGS.bike, USERS.amina, USERS.youssef, yesterday);
    await store.db
      .insertInto('messages')
      .values(messageRow(old.id, USERS.amina, { created_at: yesterday }))
      .execute();
    const now = Date.now();
    const fresh = await store.repos.conversations.create(LISTINGS.bike, USERS.sara, USERS.youssef, now);
    for (const [sender, i] of [
      [USERS.sara, 0],
      [USERS.youssef, 1],
      [USERS.sara, 2],
    ] as const)
      await store.db
        .insertInto('messages')
        .values(messageRow(fresh.id, sender, { created_at: now + i }))
        .execute();
    const since = now - 1;
    assert.deepEqual(await store.consoleReads.activitySince(since, 100), { messages: 3, senders: 2, conversations: 1 });
    // The window's last rows only: two messages, one sender; the conversation before today is not counted.
    assert.deepEqual(await store.consoleReads.activitySince(since, 2), { messages: 2, senders: 2, conversations: 1 });
    assert.deepEqual(await store.consoleReads.conversationIdsAbout(LISTINGS.bike, 0, 10), [fresh.id, old.id]);
    assert.deepEqual(await store.consoleReads.conversationIdsAbout(LISTINGS.bike, 1, 10), [old.id]);
    assert.deepEqual(await store.consoleReads.conversationIdsAbout(LISTINGS.table, 0, 10), []);
    assert.deepEqual(await store.consoleReads.userIdsNamed('AMINA k.', 20), [USERS.amina]);
    assert.deepEqual(await store.consoleReads.userIdsNamed('Amina', 20), []);
  });

  it('reads the indexes in order, and the activity from the end of the primary key', async () => {
    const byListing = await plan(sql`select id from conversations where listing_id = ${1} order by id desc limit 50 offset 0`);
    assert.match(byListing, /conversations_by_listing/);
    assert.doesNotMatch(byListing, /TEMP B-TREE|Sort/);
    assert.match(await plan(sql`select id from users where lower(name) = lower(${'x'}) order by id limit 20`), /users_name_lower/);
    const against = await plan(sql`select id from reports where reported_user_id = ${1} order by id desc limit 50`);
    assert.match(against, /reports_by_reported/);
    assert.doesNotMatch(against, /TEMP B-TREE|Sort/);
    const window = await plan(
      sql`select count(*) from (select created_at from messages order by id desc limit ${10_000}) m where m.created_at >= ${0}`,
    );
    // SQLite walks the table's rowid backwards (no sort) and stops at the limit; PostgreSQL its key backwards.
    assert.match(window, store.dialect === 'sqlite' ? /SCAN messages/ : /Limit.*Index Scan Backward using messages_pkey/);
    assert.doesNotMatch(window, /TEMP B-TREE|Sort/);
  });
});
