/**
 * latestRead (src/domain/latest-read.ts): of two overlapping reads, the one started last wins,
 * whichever ends last. The poll of the settings and a refresh after a change overlap this way; the
 * bad-words test once saw its new list undone by a poll that had read before the change.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { latestRead } from '../../src/domain/latest-read.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('latestRead', () => {
  it('does not apply a read that started before one already applied', async () => {
    const pending = [deferred<string>(), deferred<string>()];
    let reads = 0;
    let value = 'initial';
    const refresh = latestRead(
      () => pending[reads++]!.promise,
      (v) => (value = v),
    );
    const poll = refresh(); // reads the old snapshot, answered late
    const afterChange = refresh(); // reads the new one, answered first
    pending[1]!.resolve('new');
    await afterChange;
    assert.equal(value, 'new');
    pending[0]!.resolve('old');
    await poll;
    assert.equal(value, 'new');
  });

  it('applies reads answered in the order they started, each in turn', async () => {
    const pending = [deferred<number>(), deferred<number>()];
    let reads = 0;
    const seen: number[] = [];
    const refresh = latestRead(
      () => pending[reads++]!.promise,
      (v) => seen.push(v),
    );
    const first = refresh();
    const second = refresh();
    pending[0]!.resolve(1);
    await first;
    pending[1]!.resolve(2);
    await second;
    assert.deepEqual(seen, [1, 2]);
  });

  it('lets a failed read fail without blocking the next', async () => {
    let fail = true;
    let value = 0;
    const refresh = latestRead(
      async () => {
        if (fail) throw new Error('database away');
        return 7;
      },
      (v) => (value = v),
    );
    await assert.rejects(refresh(), /database away/);
    fail = false;
    await refresh();
    assert.equal(value, 7);
  });
});
