/**
 * Group commit for SQLite. A commit writes every page its transaction changed to the WAL and
 * is, with BEGIN, the largest cost of a toggle; through Kysely each statement also pays for a
 * chain of promises and its connection lock. So the write transactions that requests start within
 * one turn of the event loop run one after another, straight on the connection, inside a single
 * SQLite transaction that commits once; each reply goes out only after that commit.
 *
 * A request's outcome is the one it would have had alone: if any member of a batch fails, or the
 * commit does (disk full), the batch rolls back and each member runs again in a transaction of
 * its own. Its work is a function of its input and what it reads, so running it again is safe.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../common/schema.js';
import { beginImmediate, rollbackQuietly, type SqliteConnection } from './driver.js';

interface Job<R> {
  work: (repos: R) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

type Outcome = { ok: true; results: unknown[] } | { ok: false; error: unknown; started: boolean };

export class SqliteWriteBatch<R> {
  private queue: Job<R>[] = [];
  private scheduled = false;

  /**
   * @param db holds Kysely's lock on the connection while a batch runs, so no Kysely transaction
   *   (an import, a listing removal) interleaves with it.
   * @param repos the repositories the work gets, running on `connection` directly.
   * @param maxSize the most requests one commit answers; more wait for the next turn.
   * @param afterCommit told after each commit (the WAL flusher, wal-flusher.ts).
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly connection: SqliteConnection,
    private readonly repos: R,
    private readonly maxSize = 64,
    private readonly afterCommit: () => void = () => {},
  ) {}

  /**
   * A writer (UnitOfWork) needs no lock of its own here: a batch's members run one after another,
   * under SQLite's write lock.
   */
  transaction = <T>(work: (repos: R) => Promise<T>, _writer?: number): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // After the poll phase: every request whose bytes arrived in this turn has joined the queue.
    setImmediate(this.flush);
  }

  private flush = (): void => {
    this.scheduled = false;
    const jobs = this.queue.splice(0, this.maxSize);
    if (this.queue.length > 0) this.schedule();
    this.db
      .connection()
      .execute(() => this.runBatch(jobs))
      .catch((err: unknown) => jobs.forEach((job) => job.reject(err)));
  };

  private async runBatch(jobs: Job<R>[]): Promise<void> {
    const batch = await this.together(jobs);
    if (batch.ok) return jobs.forEach((job, i) => job.resolve(batch.results[i]));
    // No transaction could start (another process holds the write lock past the busy timeout):
    // nobody's fault, everybody's answer; trying each alone would wait that timeout again each time.
    if (!batch.started || jobs.length === 1) return jobs.forEach((job) => job.reject(batch.error));
    // A member failed, or the commit did: each runs again alone and gets its own outcome.
    for (const [i, job] of jobs.entries()) {
      const alone = await this.together([job]);
      if (alone.ok) job.resolve(alone.results[0]);
      else if (alone.started) job.reject(alone.error);
      else return jobs.slice(i).forEach((rest) => rest.reject(alone.error));
    }
  }

  /** One transaction for all the jobs: their results once committed, or the error that ended it. */
  private async together(jobs: Job<R>[]): Promise<Outcome> {
    try {
      beginImmediate(this.connection);
    } catch (error) {
      return { ok: false, error, started: false };
    }
    try {
      const results: unknown[] = [];
      for (const job of jobs) results.push(await job.work(this.repos));
      this.connection.prepare('commit').run([]);
      this.afterCommit();
      return { ok: true, results };
    } catch (error) {
      rollbackQuietly(this.connection);
      return { ok: false, error, started: true };
    }
  }
}
