/**
 * PostgreSQL's event signals (src/store/postgres/event-signals.ts): a commit's users reach this
 * instance's readers at once and the other instances' through one NOTIFY sent after it, which
 * the sending instance does not hear again; an instance's first NOTIFY makes the others' readers
 * look again. The payloads stay under NOTIFY's 8000 bytes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { TEST_POSTGRES_URL } from '../../helpers/database.js';
import { until } from '../../helpers/until.js';
import { EVENTS_CHANNEL, PostgresEventSignals, notificationPayloads, parsePayload } from '../../../src/store/postgres/event-signals.js';

describe('event signal payloads', () => {
  it('carry every id, in order, in payloads under 8000 bytes, and read back as they were written', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => 9_000_000_000_000_000 + i);
    const payloads = notificationPayloads('abc', ids);
    assert.ok(payloads.length > 1);
    assert.ok(payloads.every((p) => Buffer.byteLength(p) < 8000));
    const read = payloads.map((p) => parsePayload(p)!);
    assert.ok(read.every((r) => r.tag === 'abc'));
    assert.deepEqual(
      read.flatMap((r) => r.userIds!),
      ids,
    );
    assert.deepEqual(parsePayload('abc:*'), { tag: 'abc', userIds: undefined });
  });

  it('are refused when malformed', () => {
    for (const payload of ['5', ':5', 'abc:', 'abc:1,,2', 'abc:1;drop', 'abc:12345678901234567', 'abc:-1']) {
      assert.equal(parsePayload(payload), undefined, payload);
    }
  });
});

describe('event signals across instances', { skip: TEST_POSTGRES_URL ? false : 'PostgreSQL only' }, () => {
  it("tell this instance's readers at the commit and the others' after it, once each; the first also makes the others look again", async () => {
    const pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL });
    const notify = async (payload: string) => {
      await pool.query('select pg_notify($1, $2)', [EVENTS_CHANNEL, payload]);
    };
    const a = new PostgresEventSignals(TEST_POSTGRES_URL!, notify);
    const b = new PostgresEventSignals(TEST_POSTGRES_URL!, notify);
    // Ids no other test's instance on this database uses (the channel is the database's).
    const [first, second] = [9_000_000_000_001, 9_000_000_000_002];
    const heard = { a: [] as number[], b: [] as number[] };
    const gaps = { a: 0, b: 0 };
    a.subscribe(
      (users) => heard.a.push(...users.filter((u) => u >= first)),
      () => gaps.a++,
    );
    b.subscribe(
      (users) => heard.b.push(...users.filter((u) => u >= first)),
      () => gaps.b++,
    );
    try {
      await until(async () => (await a.backendPid()) !== undefined && (await b.backendPid()) !== undefined);
      a.committed(new Set([first, second]));
      assert.deepEqual(heard.a, [first, second], 'at the commit, with no round trip');
      await until(() => heard.b.length === 2);
      assert.deepEqual(heard.b, [first, second]);
      assert.ok(gaps.b >= 1, "a's first NOTIFY: b's readers look again");
      // b's own commit reaches a; neither hears its own notification a second time.
      b.committed([second]);
      await until(() => heard.a.length === 3);
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(heard.a, [first, second, second]);
      assert.deepEqual(heard.b, [first, second, second]);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await pool.end();
    }
  });
});
