/**
 * The WAL checkpointer's thread (checkpointer.ts): a connection of its own to the database file,
 * which copies the WAL's committed pages back into the file, PASSIVE: it neither waits for the
 * connection serving the requests nor holds it up. Every `intervalMs` while there are pages to
 * copy; less often, up to `idleMs`, while there are none, or so few that copying them took under
 * `slowMs` (the commit's checkpoint would find as little). After a checkpoint that copied pages it
 * syncs the file: SQLite syncs it only after a checkpoint that copied the whole WAL, which one
 * running beside the writes seldom does, and the commit's checkpoint that does would then wait for
 * the disk to take every page copied since.
 */
import { closeSync, fdatasyncSync, openSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite } from './driver.js';

export interface CheckpointThreadData {
  path: string;
  intervalMs: number;
  idleMs: number;
  slowMs: number;
}

/** What the thread tells its owner after a checkpoint that copied pages. */
export interface CheckpointCopied {
  pages: number;
}

const { path, intervalMs, idleMs, slowMs } = workerData as CheckpointThreadData;
const db = openSqlite(path, 0);
// Read-only is enough: fdatasync flushes the file, whichever descriptor names it.
const file = openSync(path, 'r');
let waitMs = intervalMs;
let timer: NodeJS.Timeout | undefined;
/** The WAL's pages already in the database file after the last checkpoint. */
let backfilled = 0;

/** Pages copied since the last look: `checkpointed` counts from the WAL's start, which goes back to 0 when the WAL starts over. */
function copiedSince(checkpointed: number): number {
  const copied = checkpointed >= backfilled ? checkpointed - backfilled : Math.max(0, checkpointed);
  backfilled = Math.max(0, checkpointed);
  return copied;
}

function checkpoint(): void {
  const started = performance.now();
  // busy: another checkpoint (a commit's own) held the lock; log: the WAL's pages; checkpointed: those in the file.
  const [row] = db.all<{ busy: number; log: number; checkpointed: number }>('pragma wal_checkpoint(passive)');
  const copied = row && row.busy === 0 ? copiedSince(row.checkpointed) : 0;
  // The copy's time alone: the sync's depends on the disk more than on how much waits to be copied.
  const slow = copied > 0 && performance.now() - started >= slowMs;
  if (copied > 0) {
    fdatasyncSync(file);
    parentPort!.postMessage({ pages: copied } satisfies CheckpointCopied);
  }
  waitMs = slow ? intervalMs : Math.min(idleMs, waitMs * 2);
  timer = setTimeout(checkpoint, waitMs);
}

timer = setTimeout(checkpoint, waitMs);
parentPort!.once('message', () => {
  clearTimeout(timer);
  db.close();
  closeSync(file);
  parentPort!.close();
});
