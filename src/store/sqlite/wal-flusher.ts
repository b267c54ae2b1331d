/**
 * Moves the WAL's disk writes off the event loop. With synchronous=NORMAL a commit only writes
 * the WAL into the page cache; the checkpoint that follows every ~64 MB of WAL first fsyncs it,
 * on the event loop, and while it waits for the disk every request in flight waits with it. fdatasync from a libuv pool thread shortly after each commit
 * leaves that fsync next to nothing to write. Durability is SQLite's, unchanged: this only syncs
 * earlier what SQLite would sync anyway.
 */
import { close, fdatasync, openSync } from 'node:fs';

export interface WalFlusherStats {
  /** fdatasync calls completed. */
  flushes: number;
  /** False once the file could not be synced (then SQLite's own fsync does it all, as before). */
  active: boolean;
}

export class WalFlusher {
  private fd: number | undefined;
  private flushing = false;
  private lastStart = -Infinity;
  private closed = false;
  private readonly stats: WalFlusherStats = { flushes: 0, active: true };

  /**
   * @param walPath the database file's name with `-wal` appended.
   * @param intervalMs the least time between the starts of two flushes.
   */
  constructor(
    private readonly walPath: string,
    private readonly intervalMs = 25,
  ) {}

  /** Called after each commit: starts a flush unless one is under way or started recently. */
  afterCommit(): void {
    if (this.flushing || this.closed || !this.stats.active) return;
    const now = performance.now();
    if (now - this.lastStart < this.intervalMs) return;
    const fd = this.open();
    if (fd === undefined) return;
    this.lastStart = now;
    this.flushing = true;
    fdatasync(fd, (err) => {
      this.flushing = false;
      if (err) this.stats.active = false;
      else this.stats.flushes++;
      if (this.closed) this.release();
    });
  }

  snapshot(): WalFlusherStats {
    return { ...this.stats };
  }

  /** Closes the file once no flush uses it. */
  close(): void {
    this.closed = true;
    if (!this.flushing) this.release();
  }

  private open(): number | undefined {
    if (this.fd !== undefined) return this.fd;
    try {
      // Read-only is enough: fdatasync flushes the file, whichever descriptor names it.
      this.fd = openSync(this.walPath, 'r');
    } catch (err) {
      // No WAL yet is normal before the first write; anything else, give up and leave it to SQLite.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.stats.active = false;
    }
    return this.fd;
  }

  private release(): void {
    if (this.fd === undefined) return;
    close(this.fd, () => {});
    this.fd = undefined;
  }
}
