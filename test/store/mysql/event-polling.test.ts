/**
 * The MySQL store's event signals without a database: a log of ids in memory, written out of
 * commit order as concurrent transactions write it. Every committed event's user is told, an id
 * that commits late included; polling runs only while streams are open; a poll that failed is
 * followed by a gap (every reader looks again).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MysqlEventSignals, type LogIds, type LoggedId } from '../../../src/store/mysql/event-polling.js';
import { until } from '../../helpers/until.js';

/** The committed part of a log: ids may commit in any order. */
class FakeLog implements LogIds {
  readonly committed: LoggedId[] = [];
  reads = 0;
  failing = false;

  commit(id: number, userId: number): void {
    this.committed.push({ id, userId });
  }

  private read<T>(value: T): Promise<T> {
    this.reads++;
    return this.failing ? Promise.reject(new Error('the database went away')) : Promise.resolve(value);
  }

  newest = () => this.read(Math.max(0, ...this.committed.map((e) => e.id)));
  after = (afterId: number, limit: number) =>
    this.read(
      this.committed
        .filter((e) => e.id > afterId)
        .sort((a, b) => a.id - b.id)
        .slice(0, limit),
    );
  among = (ids: number[]) => this.read(this.committed.filter((e) => ids.includes(e.id)));
}

function listen(signals: MysqlEventSignals) {
  const told: number[] = [];
  const gaps = { count: 0 };
  signals.subscribe(
    (users) => told.push(...users),
    () => gaps.count++,
  );
  return { told, gaps };
}

describe('MySQL event signals', () => {
  it('tells the users of every committed event, an id that commits after a later one included', async () => {
    const log = new FakeLog();
    const signals = new MysqlEventSignals(log, 1);
    const { told } = listen(signals);
    signals.streaming(true);
    await until(() => signals.polls > 0);
    // 1 and 3 commit, 2 is still in its transaction.
    log.commit(1, 10);
    log.commit(3, 30);
    await until(() => told.includes(10) && told.includes(30));
    assert.ok(!told.includes(20));
    log.commit(2, 20);
    await until(() => told.includes(20));
    signals.close();
  });

  it('reads back the newest ids when it starts, so that an event committed while a stream opened is not missed', async () => {
    const log = new FakeLog();
    log.commit(5, 50);
    log.commit(7, 70);
    const signals = new MysqlEventSignals(log, 1);
    const { told } = listen(signals);
    signals.streaming(true);
    await until(() => told.includes(50) && told.includes(70));
    // 6 was in flight when polling started.
    log.commit(6, 60);
    await until(() => told.includes(60));
    signals.close();
  });

  it('gives up an id after a minute: a rolled-back transaction never commits it', async () => {
    const log = new FakeLog();
    let now = 1_000_000;
    const signals = new MysqlEventSignals(log, 1, () => now);
    const { told } = listen(signals);
    signals.streaming(true);
    log.commit(2, 20);
    await until(() => told.includes(20));
    const looked = (signals as unknown as { holes: Map<number, number> }).holes;
    assert.deepEqual([...looked.keys()], [1]);
    now += 60_000;
    await until(() => looked.size === 0);
    signals.close();
  });

  it('polls only while streams are open, and tells its own commits at once', async () => {
    const log = new FakeLog();
    const signals = new MysqlEventSignals(log, 1);
    const { told } = listen(signals);
    signals.committed(new Set([4, 5]));
    assert.deepEqual(told, [4, 5]);
    assert.equal(log.reads, 0, 'no stream, no poll');
    signals.streaming(true);
    await until(() => log.reads > 3);
    signals.streaming(false);
    const reads = log.reads;
    await new Promise((r) => setTimeout(r, 30));
    // The reads of one poll may have been under way as it stopped.
    assert.ok(log.reads <= reads + 3, `${log.reads - reads} reads after it stopped`);
    signals.close();
  });

  it('after failed polls, tells every reader to look again', async () => {
    const log = new FakeLog();
    log.failing = true;
    const signals = new MysqlEventSignals(log, 1);
    const { gaps } = listen(signals);
    signals.streaming(true);
    await until(() => log.reads > 2);
    assert.equal(gaps.count, 0);
    log.failing = false;
    await until(() => gaps.count === 1);
    signals.close();
  });
});
