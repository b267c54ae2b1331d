/**
 * The WAL flusher (src/store/sqlite/wal-flusher.ts) syncs SQLite's WAL from the thread pool after
 * commits, at most once per interval, and never gets in SQLite's way when it cannot.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { WalFlusher } from '../../../src/store/sqlite/wal-flusher.js';
import { openSqlite, type SqliteConnection } from '../../../src/store/sqlite/driver.js';

/** Waits until `check` holds, for at most two seconds. */
async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await sleep(10);
  assert.ok(check(), 'condition not reached within 2 s');
}

/** This process's open descriptors on `path` (Linux's /proc). */
function descriptorsOn(path: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  }).length;
}

describe('WAL flusher', () => {
  let dir: string;
  let db: SqliteConnection;
  let wal: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'souk-wal-'));
    const file = join(dir, 'souk.db');
    wal = `${file}-wal`;
    db = openSqlite(file, 1000);
    db.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (v TEXT)');
  });

  after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const commit = () => db.run('INSERT INTO t (v) VALUES (?)', 'x'.repeat(1000));

  it('syncs after a commit, then not again until the interval has passed', async () => {
    const flusher = new WalFlusher(wal, 200);
    commit();
    assert.ok(existsSync(wal));
    flusher.afterCommit();
    await eventually(() => flusher.snapshot().flushes === 1);

    commit();
    flusher.afterCommit(); // within 200 ms of the first: skipped
    await sleep(50);
    assert.equal(flusher.snapshot().flushes, 1);

    await sleep(200);
    commit();
    flusher.afterCommit();
    await eventually(() => flusher.snapshot().flushes === 2);
    assert.deepEqual(flusher.snapshot(), { flushes: 2, active: true });
    flusher.close();
  });

  it('starts no second sync while one is under way', async () => {
    const flusher = new WalFlusher(wal, 0);
    for (let i = 0; i < 5; i++) {
      commit();
      flusher.afterCommit();
    }
    await eventually(() => flusher.snapshot().flushes === 1);
    await sleep(30);
    assert.equal(flusher.snapshot().flushes, 1);
    flusher.close();
  });

  it('waits for a WAL that does not exist yet, then syncs it', async () => {
    const later = join(dir, 'later.db-wal');
    const flusher = new WalFlusher(later, 0);
    flusher.afterCommit();
    await sleep(30);
    assert.deepEqual(flusher.snapshot(), { flushes: 0, active: true });
    writeFileSync(later, 'frames');
    flusher.afterCommit();
    await eventually(() => flusher.snapshot().flushes === 1);
    flusher.close();
  });

  it('stands down when the file cannot be opened, leaving the syncing to SQLite', async () => {
    const notADirectory = join(dir, 'plain-file');
    writeFileSync(notADirectory, '');
    const flusher = new WalFlusher(join(notADirectory, 'souk.db-wal'), 0);
    flusher.afterCommit();
    assert.deepEqual(flusher.snapshot(), { flushes: 0, active: false });
    flusher.afterCommit();
    assert.equal(flusher.snapshot().flushes, 0);
  });

  it('closes its descriptor on close, after a sync in flight has finished', { skip: !existsSync('/proc/self/fd') }, async () => {
    const before = descriptorsOn(wal); // SQLite's own
    const flusher = new WalFlusher(wal, 0);
    commit();
    flusher.afterCommit();
    assert.equal(descriptorsOn(wal), before + 1);
    flusher.close();
    await eventually(() => descriptorsOn(wal) === before);
    flusher.afterCommit(); // closed: does nothing
    assert.equal(descriptorsOn(wal), before);
  });
});
