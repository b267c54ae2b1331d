/**
 * A conversation's page of messages is read with its rows as arrays of values (SQLite, PostgreSQL:
 * src/store/common/repositories.ts, messages.pageOf), the cheaper form for its many rows. It must
 * give the messages the plain path gives: the same rows read as objects and mapped by toMessage.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/index.js';
import { toMessage } from '../../src/store/common/rows.js';
import { marketplaceStore } from '../helpers/marketplace-store.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';

/** A conversation of 60 messages of every kind: texts, files with attachments, read or not, with a temp_id or not. */
async function conversationOf60(store: Store): Promise<number> {
  const at = Date.parse('2026-11-26T12:00:00Z');
  const conId = (await store.repos.conversations.create(LISTINGS.bike, USERS.sara, USERS.amina, at)).id;
  const texts = ['hi', '', 'é ✓ 🙂 "quoted" \\ back', 'line\nbreak', 'x'.repeat(2000)];
  const rows = Array.from({ length: 60 }, (_, i) => ({
    con_id: conId,
    source_id: i % 3 === 0 ? USERS.amina : USERS.sara,
    message: texts[i % texts.length]!,
    type: i % 7 === 0 ? 'file' : 'text',
    attachments: i % 7 === 0 ? JSON.stringify([{ name: `f${i}.png`, url: `https://souk.example/f${i}.png`, size: i }]) : null,
    meta: null,
    is_read: i % 2,
    temp_id: i % 5 === 0 ? `t-${i}` : null,
    created_at: at + i * 1000,
  }));
  await store.db.insertInto('messages').values(rows).execute();
  return conId;
}

describe('a page of messages read as arrays', () => {
  it('gives the messages the plain path gives, page by page', async (t) => {
    const store = await marketplaceStore(t);
    const conId = await conversationOf60(store);
    // The plain path: every row as an object, mapped by toMessage, then paged here.
    const all = (await store.db.selectFrom('messages').selectAll().where('con_id', '=', conId).execute()).map(toMessage);
    const plainPage = (afterId: number, offset: number, limit: number) =>
      all
        .filter((m) => m.id > afterId)
        .sort((a, b) => b.id - a.id)
        .slice(offset, offset + limit);
    const first = await store.repos.messages.pageOf(conId, 0, 0, 50);
    assert.equal(first.length, 50);
    assert.ok(first.some((m) => m.attachments !== null && m.tempId !== null && m.isRead));
    for (const [afterId, offset, limit] of [
      [0, 0, 50],
      [0, 50, 50],
      [0, 100, 50],
      [first[10]!.id, 0, 20],
    ] as const) {
      assert.deepStrictEqual(await store.repos.messages.pageOf(conId, afterId, offset, limit), plainPage(afterId, offset, limit));
    }
  });
});
