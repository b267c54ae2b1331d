/**
 * The stored files each message names (message_files, migration 023), what the orphan sweep and a
 * message's deletion ask instead of reading every message's attachments: an indexed lookup by
 * digest, written with the message, gone with the message, its attachments or its conversation,
 * and filled by the migration from the messages stored before it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { UploadedAttachment } from '../../src/domain/model.js';
import type { Store } from '../../src/store/index.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations/index.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations/index.js';
import { freshDatabase, type TestDatabase } from '../helpers/database.js';
import { LISTINGS, messageRow, SITE_URL, USERS } from '../helpers/fixtures.js';
import { openMarketplaceStore } from '../helpers/store.js';

const OPTIONS = { poolSize: 2, statementTimeoutMs: 2000, connectTimeoutMs: 2000 };
const digest = (n: number) => n.toString(16).padStart(2, '0').repeat(32);
const upload = (d: string): UploadedAttachment => ({
  url: `${SITE_URL}/files/chat/${d.slice(0, 2)}/${d}.png`,
  type: 'image',
  mimeType: 'image/png',
  name: 'p.png',
  size: 10,
  thumbnail: `${SITE_URL}/files/chat/${d.slice(0, 2)}/${d}-thumb.png`,
});

describe('message_files (migration 023)', () => {
  let database: TestDatabase;
  let store: Store;
  let conId: number;

  before(async () => {
    database = await freshDatabase();
    store = await openMarketplaceStore(database.url, OPTIONS);
    conId = (await store.repos.conversations.create(LISTINGS.bike, USERS.sara, USERS.amina, Date.now())).id;
  });

  after(async () => {
    await store.close();
    await database.drop();
  });

  const append = (sourceId: number, attachments: Parameters<Store['repos']['messages']['append']>[0]['attachments']) =>
    store.repos.messages.append({ conId, sourceId, text: '', type: 'attachment', attachments, tempId: null, createdAt: Date.now() });
  const referenced = async (...ns: number[]) => [...(await store.fileReferences.referenced(ns.map(digest)))].sort();

  it('is looked up by digest through its index', async () => {
    const indexes =
      store.dialect === 'sqlite'
        ? sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'message_files' and sql is not null`
        : sql<{
            name: string;
          }>`select indexname as name from pg_indexes where tablename = 'message_files' and schemaname = current_schema()`;
    assert.ok((await indexes.execute(store.db)).rows.some((r) => r.name === 'message_files_by_digest'));
    if (store.dialect === 'sqlite') {
      const plan = await sql<{
        detail: string;
      }>`explain query plan select distinct digest from message_files where digest in ('a', 'b')`.execute(store.db);
      assert.match(plan.rows.map((r) => r.detail).join('\n'), /USING (COVERING )?INDEX message_files_by_digest/);
    }
  });

  it("records a message's uploads with it, never an address it names", async () => {
    await append(USERS.sara, [upload(digest(1))]);
    await append(USERS.sara, [{ url: upload(digest(2)).url, name: 'named.png' }]);
    assert.deepEqual(await referenced(1, 2, 3), [digest(1)]);
    assert.equal(await store.fileReferences.isReferenced(digest(1)), true);
    assert.equal(await store.fileReferences.isReferenced(digest(2)), false);
  });

  it('forgets them when the message is removed, its sender erased or its conversation deleted', async () => {
    const removed = await append(USERS.sara, [upload(digest(4))]);
    await append(USERS.amina, [upload(digest(5))]);
    await append(USERS.amina, [upload(digest(6))]);
    assert.deepEqual(await referenced(4, 5, 6), [digest(4), digest(5), digest(6)]);
    await store.repos.moderation!.removeMessage(removed.id);
    assert.deepEqual(await referenced(4, 5, 6), [digest(5), digest(6)]);
    await store.repos.moderation!.erase(USERS.amina, Date.now());
    assert.deepEqual(await referenced(4, 5, 6), []);
    assert.deepEqual(await referenced(1), [digest(1)]);
    await store.repos.moderation!.deleteInactiveConversations(Date.now() + 60_000, 10);
    assert.deepEqual(await referenced(1), []);
  });

  it('is filled by the migration from the messages stored before it', async () => {
    const other = (await store.repos.conversations.create(LISTINGS.table, USERS.amina, USERS.youssef, Date.now())).id;
    const migration = (store.dialect === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS)['023-message-files']!;
    await migration.down!(store.db);
    await store.db
      .insertInto('messages')
      .values([
        messageRow(other, USERS.amina, { attachments: JSON.stringify([upload(digest(7)), { url: upload(digest(8)).url }]) }),
        messageRow(other, USERS.amina, { attachments: 'not json' }),
        messageRow(other, USERS.amina, { attachments: JSON.stringify([{ url: 7, mimeType: 'x' }, null]) }),
      ])
      .execute();
    await migration.up(store.db);
    assert.deepEqual(await referenced(7, 8), [digest(7)]);
  });
});
