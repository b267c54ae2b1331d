/** SQLite's page cache: 16 MB, or what DB_CACHE_MB says; its memory map: none, or DB_MMAP_MB (src/store/sqlite/connection.ts). */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openStore, type Store } from '../../../src/store/index.js';

const OPTIONS = { poolSize: 1, statementTimeoutMs: 2000, connectTimeoutMs: 2000 };

/** The cache size SQLite reports, in MB (a negative cache_size is in KiB). */
async function cacheMbOf(store: Store): Promise<number> {
  const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(store.db);
  return -rows[0]!.cache_size / 1024;
}

describe('SQLite page cache size', () => {
  let dir: string;
  const opened: Store[] = [];
  const open = (cacheMb?: number, mmapMb?: number) => {
    const url = `sqlite:${join(dir, 'souk.db')}`;
    const store = openStore(url, {
      ...OPTIONS,
      ...(cacheMb === undefined ? {} : { cacheMb }),
      ...(mmapMb === undefined ? {} : { mmapMb }),
    });
    opened.push(store);
    return store;
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'souk-cache-'));
  });

  after(async () => {
    for (const store of opened) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is 16 MB by default, and what DB_CACHE_MB says when set', async () => {
    assert.equal(await cacheMbOf(open()), 16);
    assert.equal(await cacheMbOf(open(64)), 64);
    assert.equal(await cacheMbOf(open(1)), 1);
  });

  it('maps none of the file by default, and what DB_MMAP_MB says when set', async () => {
    const mmapOf = async (store: Store) => (await sql<{ mmap_size: number }>`pragma mmap_size`.execute(store.db)).rows[0]!.mmap_size;
    assert.equal(await mmapOf(open()), 0);
    assert.equal(await mmapOf(open(undefined, 64)), 64 * 1024 * 1024);
  });
});
