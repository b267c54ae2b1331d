/**
 * PostgreSQL's unit of work: a transaction on a pooled client, begun with its first statement and
 * its writer's lock in the same message (transaction-runner.ts).
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { Pool } from 'pg';
import type { Repositories } from '../../domain/ports.js';
import { TransactionRunner, type WriterLock } from './transaction-runner.js';
import type { QueryRunner } from '../common/prepared.js';
import type { Database } from '../common/schema.js';
import type { WriterBlocks } from '../common/blocks.js';

/**
 * The writer's lock is FOR NO KEY UPDATE on their row: it serialises the user's writes like FOR
 * UPDATE, but does not block the KEY SHARE lock that a foreign-key check takes on the same row.
 * With FOR UPDATE, user A starting a conversation with B while B starts one with A deadlocked
 * (each held its own row and waited for the other's, as recipient_id's foreign key): 40P01, a 500.
 */
export function writerLock(writer: number): WriterLock {
  // Written into the text too: BEGIN's message holds more than one statement, so no parameters.
  if (!Number.isSafeInteger(writer)) throw new TypeError(`a writer is a user id, not ${String(writer)}`);
  // With the lock, how many blocks the writer is party to (store/common/blocks.ts): a block that
  // held the lock has updated the row, and a lock that waited for it returns the row as updated.
  const sql = 'select id, blocks from users where id = $1 for no key update';
  return {
    name: 'souk_writer_lock',
    query: CompiledQuery.raw(sql, [writer]),
    text: sql.replace('$1', String(writer)),
  };
}

/** UnitOfWork's transaction; with `alone`, fn asks for one statement and writes nothing after it (UnitOfWork.alone). */
export type PostgresTransaction = <T>(fn: (repos: Repositories) => Promise<T>, writer?: number, alone?: boolean) => Promise<T>;

/**
 * Each transaction runs on a client of its own from the pool, its statements through pg
 * (runner.ts). A client whose ROLLBACK failed is dropped by the pool, not handed on.
 */
export function postgresTransaction(
  db: Kysely<Database>,
  pool: Pool,
  /** Named statements (runner.ts); with `join`, run by EXECUTE inside other statements' messages (transaction-runner.ts). */
  statements: { named: boolean; join: boolean },
  repositories: (run: QueryRunner, writer: WriterBlocks | undefined, recorded: (userId: number) => void) => Repositories,
  /** Told, after each commit, of the users the transaction logged events for. */
  committed: (userIds: Set<number>) => void,
): PostgresTransaction {
  return async <T>(fn: (repos: Repositories) => Promise<T>, writer?: number, alone = false): Promise<T> => {
    const client = await pool.connect();
    const recorded = new Set<number>();
    // Unknown until the lock's row says: until then, the block checks run.
    const known: WriterBlocks | undefined = writer === undefined ? undefined : { writer, party: undefined };
    const lock = writer === undefined ? undefined : writerLock(writer);
    const run = new TransactionRunner(db, client, { ...statements, alone }, lock, (locked) => {
      const row = locked?.rows[0] as { blocks?: unknown } | unknown[] | undefined;
      const blocks = Array.isArray(row) ? row[1] : row?.blocks;
      // A block this unit of work wrote before its first statement has made the writer a party already.
      if (known && known.party === undefined && blocks !== undefined && blocks !== null) known.party = Number(blocks) !== 0;
    });
    let broken: Error | undefined;
    let result: T;
    try {
      result = await fn(repositories(run, known, (userId) => recorded.add(userId)));
      await run.commit();
    } catch (err) {
      // Also when the lock failed (a timeout): its BEGIN has left a transaction open, which must
      // not go back to the pool. After a failed COMMIT there is none, and ROLLBACK only warns. The
      // error to report is the one that ended the work, not a failed rollback's (a lost
      // connection, whose client the pool then drops).
      await run.rollback().catch((rollbackError: Error) => (broken = rollbackError));
      throw err;
    } finally {
      client.release(broken);
    }
    // Once committed, outside the transaction's handling: nothing here can roll it back.
    committed(recorded);
    return result;
  };
}
