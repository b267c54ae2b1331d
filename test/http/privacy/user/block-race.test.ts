/**
 * A block racing a conversation's messages (docs/safety.md): once POST privacy/user/block has
 * answered, no message of the blocked user commits. The block takes both users' write locks (the
 * lock each send takes first), so a send either commits before the block does or sees it. On
 * SQLite, and on PostgreSQL (READ COMMITTED) when TEST_DATABASE_URL names one.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LISTINGS, USERS } from '../../../helpers/fixtures.js';
import { startTestSouk } from '../../../helpers/souk.js';

const API = '/wp-json/rtcl/v1';
const { youssef, sara } = USERS;
const WORKERS = 8;

describe('a block racing messages', () => {
  it('lets no message of the blocked user commit after the block has answered', async () => {
    const t = await startTestSouk();
    const base = await t.listen();
    const post = (as: number, path: string, body: unknown) =>
      fetch(`${base}${API}${path}`, {
        method: 'POST',
        headers: { ...t.auth(as), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const started = await post(sara, '/my/chat/conversation', { listing_id: LISTINGS.bike, text: 'Hello' });
    assert.equal(started.status, 200);
    const conId = Number(((await started.json()) as { con_id: number }).con_id);
    const count = async () =>
      Number(
        (
          await t.souk.store.db
            .selectFrom('messages')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('source_id', '=', sara)
            .executeTakeFirstOrThrow()
        ).n,
      );

    let sent = 0;
    const statuses: number[] = [];
    // Each worker sends until it is refused: the last answer of every one is the block's 403.
    const worker = async () => {
      for (;;) {
        const res = await post(sara, '/my/chat/message', { con_id: conId, text: `message ${sent}` });
        await res.arrayBuffer();
        statuses.push(res.status);
        if (res.status !== 200) return;
        sent++;
      }
    };
    const workers = Array.from({ length: WORKERS }, worker);
    while (sent < 20) await new Promise((resolve) => setImmediate(resolve));
    const blocked = await post(youssef, '/privacy/user/block', { user_id: sara });
    assert.equal(blocked.status, 200, await blocked.text());
    const atAnswer = await count();
    await Promise.all(workers);
    assert.equal(await count(), atAnswer, 'a message committed after the block answered');
    assert.equal(statuses.filter((s) => s === 403).length, WORKERS, 'every worker ends refused');
    assert.ok(
      statuses.every((s) => s === 200 || s === 403),
      statuses.join(','),
    );
    assert.equal(atAnswer, 1 + statuses.filter((s) => s === 200).length, 'every accepted message is stored');
  });
});
