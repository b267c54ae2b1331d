/**
 * Two users starting conversations about each other's listings at the same time, while both
 * toggle favourites: every request is answered 200. (On PostgreSQL each start locks its caller's
 * row and its foreign key reads the other's; with FOR UPDATE as the caller's lock these deadlocked
 * and were answered 500.)
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';

it('cross conversation starts and toggles by two users, concurrently, all answered 200', async () => {
  const t = await startTestSouk({ RATE_LIMIT_PER_USER: '0' });
  const calls = Array.from({ length: 120 }, (_, i) => {
    switch (i % 4) {
      case 0:
        return t.start(USERS.amina, { listing_id: LISTINGS.bike, text: `a${i}` });
      case 1:
        return t.start(USERS.youssef, { listing_id: LISTINGS.aminasOwn, text: `y${i}` });
      case 2:
        return t.toggle(USERS.amina, { listing_id: LISTINGS.draft });
      default:
        return t.toggle(USERS.youssef, { listing_id: LISTINGS.aminasOwn });
    }
  });
  const replies = await Promise.all(calls);
  assert.deepEqual(
    replies.map((r) => r.statusCode),
    Array(120).fill(200),
    replies
      .filter((r) => r.statusCode !== 200)
      .map((r) => r.body)
      .slice(0, 3)
      .join('\n'),
  );
  const conversations = await t.souk.store.db.selectFrom('conversations').selectAll().execute();
  assert.equal(conversations.length, 2);
  const messages = await t.souk.store.db.selectFrom('messages').select('id').execute();
  assert.equal(messages.length, 60);
});
