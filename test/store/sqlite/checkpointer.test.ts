/**
 * The WAL checkpointer (src/store/sqlite/checkpointer.ts) copies committed pages back into the
 * database file from a thread of its own, once the WAL has grown, and ends that thread first on
 * close, so that the serving connection, closed last, removes the WAL.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { WalCheckpointer } from '../../../src/store/sqlite/checkpointer.js';
import { openSqlite, type SqliteConnection } from '../../../src/store/sqlite/driver.js';
import { until } from '../../helpers/until.js';

describe('WAL checkpointer', () => {
  let dir: string;
  let file: string;
  let wal: string;
  let db: SqliteConnection;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'souk-checkpoint-'));
    file = join(dir, 'souk.db');
    wal = `${file}-wal`;
    db = openSqlite(file, 1000);
    // No checkpoint at commits: whatever reaches the file, the thread copied.
    db.exec('PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (v TEXT)');
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  const commit = (rows: number) => {
    db.exec('BEGIN');
    for (let i = 0; i < rows; i++) db.run('INSERT INTO t (v) VALUES (?)', 'x'.repeat(1000));
    db.exec('COMMIT');
  };

  /** What the database file holds without its WAL: a copy of it alone, opened. */
  const rowsInFileAlone = (): number | undefined => {
    const copy = join(dir, 'alone.db');
    rmSync(copy, { force: true });
    copyFileSync(file, copy);
    const alone = openSqlite(copy, 1000);
    try {
      const [table] = alone.all<{ n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE name = 't'");
      return table!.n === 0 ? undefined : alone.all<{ n: number }>('SELECT count(*) AS n FROM t')[0]!.n;
    } finally {
      alone.close();
    }
  };

  it('starts its thread only once the WAL has grown past its threshold', async () => {
    const checkpointer = new WalCheckpointer(file, wal, { startAtBytes: 2_000_000, lookEveryMs: 0 });
    commit(10);
    checkpointer.afterCommit();
    await sleep(100);
    assert.equal(checkpointer.snapshot().running, false);
    assert.equal(rowsInFileAlone(), undefined, 'the table is still in the WAL only');
    await checkpointer.close();
  });

  it('copies the committed pages into the database file from its thread', async () => {
    const checkpointer = new WalCheckpointer(file, wal, { intervalMs: 10, idleMs: 20, startAtBytes: 1_000_000, lookEveryMs: 0 });
    commit(1500);
    checkpointer.afterCommit();
    assert.equal(checkpointer.snapshot().running, true);
    await until(() => checkpointer.snapshot().checkpoints > 0);
    assert.equal(rowsInFileAlone(), 1510);

    // Commits made while it runs reach the file too.
    const before = checkpointer.snapshot().pages;
    commit(20);
    await until(() => checkpointer.snapshot().pages > before);
    assert.equal(rowsInFileAlone(), 1530);

    await checkpointer.close();
    assert.equal(checkpointer.snapshot().running, false);
    checkpointer.afterCommit(); // closed: never starts again
    assert.equal(checkpointer.snapshot().running, false);
    // Its connection closed, the serving one is the last: closing it copies the rest and removes the WAL.
    db.close();
    assert.equal(existsSync(wal), false);
  });
});
