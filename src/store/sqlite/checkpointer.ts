/**
 * Copies the WAL back into the database file from a thread of its own (checkpoint-thread.ts).
 * SQLite checkpoints at the commit that finds the WAL past wal_autocheckpoint's pages
 * (connection.ts): on the event loop, where every request in flight waits while it copies them
 * (30-50 ms each under the bench's writes, mostly waiting for the disk to take the pages). With the
 * thread copying what commits add every 100 ms while that takes it a while, and syncing the file
 * after, the commit's checkpoint finds little left to copy or to sync. That one stays, and must:
 * SQLite starts the WAL over only when a writer finds it all copied, which a checkpoint running
 * beside the writes rarely leaves it.
 *
 * The thread starts once the WAL has grown past `startAtBytes`: a database that is seldom
 * written never needs it. If it fails, the commits' checkpoints do all the work, as before.
 */
import { once } from 'node:events';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CheckpointCopied, CheckpointThreadData } from './checkpoint-thread.js';

/** Under tsx (the tests) this module is the .ts beside checkpoint-thread.ts; built, the .js beside its .js. */
const PROGRAM = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? './checkpoint-thread.ts' : './checkpoint-thread.js', import.meta.url),
);

export interface CheckpointerOptions {
  /** The least time between two checkpoints while commits add pages. */
  intervalMs?: number;
  /** The most time between two checkpoints while they find nothing to copy, or copy it quickly. */
  idleMs?: number;
  /** A checkpoint whose copy took this long keeps the next at `intervalMs`. */
  slowMs?: number;
  /** The WAL's size at which the thread starts. */
  startAtBytes?: number;
  /** The least time between two looks at the WAL's size. */
  lookEveryMs?: number;
}

export interface CheckpointerStats {
  /** Checkpoints of the thread that copied pages, and the pages they copied. */
  checkpoints: number;
  pages: number;
  running: boolean;
}

export class WalCheckpointer {
  private worker: Worker | undefined;
  private started = false;
  private closed = false;
  private lookedAt = -Infinity;
  private readonly stats = { checkpoints: 0, pages: 0 };
  private readonly options: Required<CheckpointerOptions>;

  constructor(
    private readonly path: string,
    private readonly walPath: string,
    options: CheckpointerOptions = {},
  ) {
    this.options = { intervalMs: 100, idleMs: 1000, slowMs: 2, startAtBytes: 4 * 1024 * 1024, lookEveryMs: 1000, ...options };
  }

  /** Called after each commit: starts the thread once the WAL is large enough. */
  afterCommit(): void {
    if (this.started || this.closed) return;
    const now = performance.now();
    if (now - this.lookedAt < this.options.lookEveryMs) return;
    this.lookedAt = now;
    if (this.walBytes() >= this.options.startAtBytes) this.start();
  }

  snapshot(): CheckpointerStats {
    return { ...this.stats, running: this.worker !== undefined };
  }

  /** Ends the thread (its connection closed) and waits for it. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    const exited = once(worker, 'exit');
    // Held until it has closed its connection: the serving one must be closed last.
    worker.ref();
    worker.postMessage('close');
    await exited;
  }

  private walBytes(): number {
    try {
      return statSync(this.walPath).size;
    } catch {
      return 0;
    }
  }

  private start(): void {
    this.started = true;
    const { intervalMs, idleMs, slowMs } = this.options;
    const worker = new Worker(PROGRAM, {
      workerData: { path: this.path, intervalMs, idleMs, slowMs } satisfies CheckpointThreadData,
      // It allocates next to nothing: small heaps keep its share of the process's memory small.
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
    });
    worker.on('message', ({ pages }: CheckpointCopied) => {
      this.stats.checkpoints++;
      this.stats.pages += pages;
    });
    worker.on('error', () => {});
    worker.once('exit', () => {
      if (this.worker === worker) this.worker = undefined;
    });
    // After the listeners, which would hold it again: the thread holds nothing the process must
    // wait for (a process that ends without close() loses no commit).
    worker.unref();
    this.worker = worker;
  }
}
