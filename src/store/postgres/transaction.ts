/**
 * PostgreSQL's unit of work. Every statement is a round trip to the server, and sending one is
 * the largest CPU cost Souk has there (the socket write). So BEGIN and the writer's lock travel as one message: one simple-protocol
 * query holding both statements, a round trip less in every toggle and every start.
 */
import type { Kysely } from 'kysely';
import type { Pool } from 'pg';
import type { Repositories, UnitOfWork } from '../../domain/ports.js';
import { postgresRunner } from './runner.js';
import type { QueryRunner } from '../common/prepared.js';
import type { Database } from '../common/schema.js';
import type { WriterBlocks } from '../common/blocks.js';

/**
 * The writer's lock is FOR NO KEY UPDATE on their row: it serialises the user's writes like FOR
 * UPDATE, but does not block the KEY SHARE lock that a foreign-key check takes on the same row.
 * With FOR UPDATE, user A starting a conversation with B while B starts one with A deadlocked
 * (each held its own row and waited for the other's, as recipient_id's foreign key): 40P01, a 500.
 */
export function beginStatement(writer: number | undefined): string {
  if (writer === undefined) return 'begin';
  // A literal, not a parameter: a query with parameters cannot hold two statements.
  if (!Number.isSafeInteger(writer)) throw new TypeError(`a writer is a user id, not ${String(writer)}`);
  // With the lock, how many blocks the writer is party to (store/common/blocks.ts): a block that
  // held the lock has updated the row, and a lock that waited for it returns the row as updated.
  return `begin; select id, blocks from users where id = ${writer} for no key update`;
}

/** What the begin statement's last result says of the writer's blocks. */
function writerBlocks(writer: number | undefined, results: unknown): WriterBlocks | undefined {
  if (writer === undefined || !Array.isArray(results)) return undefined;
  const blocks = (results[1] as { rows?: { blocks?: unknown }[] } | undefined)?.rows?.[0]?.blocks;
  return blocks === undefined || blocks === null ? undefined : { writer, party: Number(blocks) !== 0 };
}

/**
 * Each transaction runs on a client of its own from the pool, its statements through pg
 * (runner.ts). A client whose ROLLBACK failed is dropped by the pool, not handed on.
 */
export function postgresTransaction(
  db: Kysely<Database>,
  pool: Pool,
  named: boolean,
  repositories: (run: QueryRunner, writer: WriterBlocks | undefined) => Repositories,
): UnitOfWork['transaction'] {
  return async (fn, writer) => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      const begun: unknown = await client.query(beginStatement(writer));
      const result = await fn(repositories(postgresRunner(db, client, named), writerBlocks(writer, begun)));
      await client.query('commit');
      return result;
    } catch (err) {
      // Also when the lock failed (a timeout): its BEGIN has left a transaction open, which must
      // not go back to the pool. After a failed COMMIT there is none, and ROLLBACK only warns. The
      // error to report is the one that ended the work, not a failed rollback's (a lost
      // connection, whose client the pool then drops).
      await client.query('rollback').catch((rollbackError: Error) => (broken = rollbackError));
      throw err;
    } finally {
      client.release(broken);
    }
  };
}
