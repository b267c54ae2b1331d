/**
 * The MySQL store's fast paths give what the plain ones gave: statements sent together in one
 * round trip (a unit of work's BEGIN, lock and writes that wait for the next statement; the reads
 * of one turn outside units of work), with each statement's result and each failure where it
 * belongs: a write that waited and failed rolls its unit back, a read that failed fails alone.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, Kysely, MysqlDialect } from 'kysely';
import { createPool } from 'mysql2';
import { mysqlContext, together, type Db } from '../../../src/store/mysql/context.js';
import { batchedReads } from '../../../src/store/mysql/read-batch.js';
import { unitOfWork } from '../../../src/store/mysql/unit-of-work.js';
import { mysqlReachable, wordpressDatabase } from '../../helpers/wordpress.js';

const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';

async function site(): Promise<{ db: Db; close(): Promise<void>; query: (text: string) => Promise<Record<string, unknown>[]> }> {
  const wp = await wordpressDatabase();
  const pool = createPool({ uri: wp.url, charset: 'utf8mb4', dateStrings: true, supportBigNumbers: true, multipleStatements: true });
  const db: Db = new Kysely({ dialect: new MysqlDialect({ pool }) });
  return { db, close: () => db.destroy(), query: (text) => wp.query(text) };
}

const insertMeta = (key: string, value: string) =>
  CompiledQuery.raw('insert into wp_usermeta (user_id, meta_key, meta_value) values (?, ?, ?)', [2, key, value]);
const metaOf = (key: string) => CompiledQuery.raw('select meta_value from wp_usermeta where meta_key = ? order by umeta_id', [key]);

describe('statements sent together', { skip }, () => {
  it("answers each statement of one round trip with its own result, and a unit's waiting writes land in order at COMMIT", async () => {
    const { db, close, query } = await site();
    try {
      const ctx = mysqlContext(db, 'wp_', true);
      const [inserted, none, one] = await together(db, ctx, [insertMeta('souk_a', '1'), metaOf('souk_b'), metaOf('souk_a')]);
      assert.ok(inserted!.insertId! > 0n);
      assert.deepEqual(none!.rows, []);
      assert.deepEqual(one!.rows, [{ meta_value: '1' }]);

      const seen = await unitOfWork(db, ctx, 2, async (connection, scope) => {
        await scope.enter();
        scope.later(insertMeta('souk_b', 'first'));
        scope.later(CompiledQuery.raw("update wp_usermeta set meta_value = 'second' where meta_key = 'souk_b'"));
        // A read after them sees them: they go before it, in the same round trip.
        return (await connection.executeQuery(metaOf('souk_b'))).rows;
      });
      assert.deepEqual(seen, [{ meta_value: 'second' }]);
      assert.deepEqual(await query("select meta_value from wp_usermeta where meta_key = 'souk_b'"), [{ meta_value: 'second' }]);
    } finally {
      await close();
    }
  });

  it('rolls a unit back when a write that waited fails, with the writes that waited before it', async () => {
    const { db, close, query } = await site();
    try {
      const ctx = mysqlContext(db, 'wp_', true);
      await assert.rejects(
        unitOfWork(db, ctx, 2, async (_connection, scope) => {
          await scope.enter();
          scope.later(insertMeta('souk_c', 'written'));
          scope.later(CompiledQuery.raw('insert into wp_no_such_table values (1)'));
        }),
        /wp_no_such_table/,
      );
      assert.deepEqual(await query("select meta_value from wp_usermeta where meta_key = 'souk_c'"), []);
    } finally {
      await close();
    }
  });

  it('sends the reads of one turn together, and a failed one fails alone', async () => {
    const { db, close } = await site();
    try {
      const ctx = mysqlContext(db, 'wp_', true);
      const reads = batchedReads(db, ctx);
      const [a, b, c] = await Promise.allSettled([
        reads.executeQuery(CompiledQuery.raw('select ID from wp_users where ID = ?', [2])),
        reads.executeQuery(CompiledQuery.raw('select nothing from wp_no_such_table')),
        reads.executeQuery(CompiledQuery.raw('select ID from wp_users where ID in (?, ?) order by ID', [2, 3])),
      ]);
      assert.deepEqual(a.status === 'fulfilled' && a.value.rows, [{ ID: 2 }]);
      assert.equal(b.status, 'rejected');
      assert.deepEqual(c.status === 'fulfilled' && c.value.rows, [{ ID: 2 }, { ID: 3 }]);
    } finally {
      await close();
    }
  });
});
