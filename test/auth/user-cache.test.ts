/**
 * The cache of looked-up users (USER_CACHE_SIZE): it keeps at most its size, forgets the user kept
 * longest when full, keeps none at 0, and forgets every user when the catalog version changes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cachedUserLookup } from '../../src/auth/user-cache.js';
import type { User } from '../../src/domain/model.js';

/** A lookup over ids 1 to 9 that counts the database reads it makes, and the cache over it. */
function lookup(capacity: number) {
  const reads: number[] = [];
  let version = 'v1';
  const find = async (id: number) => {
    reads.push(id);
    return id < 10 ? ({ id, name: `user ${id}` } as User) : undefined;
  };
  const cached = cachedUserLookup(find, () => version, capacity);
  return { cached, reads, changeCatalog: (v: string) => void (version = v) };
}

describe('the user cache', () => {
  it('reads a user once while kept, and at most its size are kept (the one kept longest goes first)', async () => {
    const { cached, reads } = lookup(2);
    assert.equal((await cached(1))?.name, 'user 1');
    await cached(2);
    await cached(1);
    await cached(2);
    assert.deepEqual(reads, [1, 2]);
    await cached(3);
    await cached(2);
    await cached(3);
    assert.deepEqual(reads, [1, 2, 3], '2 and 3 kept');
    await cached(1);
    assert.deepEqual(reads, [1, 2, 3, 1], '1 was forgotten when 3 came');
  });

  it('keeps a user that does not exist too, and reads it again once forgotten', async () => {
    const { cached, reads } = lookup(1);
    assert.equal(await cached(42), undefined);
    assert.equal(await cached(42), undefined);
    await cached(1);
    assert.equal(await cached(42), undefined);
    assert.deepEqual(reads, [42, 1, 42]);
  });

  it('keeps none at size 0', async () => {
    const { cached, reads } = lookup(0);
    for (let i = 0; i < 3; i++) assert.equal((await cached(5))?.id, 5);
    assert.deepEqual(reads, [5, 5, 5]);
  });

  it('forgets every user when the catalog changes', async () => {
    const { cached, reads, changeCatalog } = lookup(100);
    await cached(1);
    await cached(2);
    changeCatalog('v2');
    await cached(1);
    await cached(2);
    await cached(1);
    assert.deepEqual(reads, [1, 2, 1, 2]);
  });
});
