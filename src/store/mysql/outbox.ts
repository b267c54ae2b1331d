/**
 * What the webhook and push outboxes (webhooks.ts, push.ts) do alike on MySQL: claim the due
 * rows for a lease, and record a failed attempt. Both tables have `id`, `status`, `attempts`,
 * `next_attempt_at` and `last_error` with the same meanings.
 */
import { sql, type RawBuilder } from 'kysely';
import type { AuditRecord } from '../../domain/audit.js';
import { rows, T, type Db, type MysqlContext } from './context.js';
import { withAudit } from './server-api.js';

/** The longest error text kept, as on the other databases. */
const ERROR_MAX = 500;

/**
 * The pending rows due by `now`, at most `limit`, oldest first, each leased until `leaseUntil`
 * (its next attempt moves there). FOR UPDATE SKIP LOCKED (MySQL 8, MariaDB 10.6): another
 * instance claiming at the same moment skips the rows this one is taking, and a sender that dies
 * leaves them to be claimed again once the lease has passed.
 */
export async function claimDue<R>(
  db: Db,
  table: string,
  columns: readonly string[],
  now: number,
  leaseUntil: number,
  limit: number,
): Promise<R[]> {
  return db.transaction().execute(async (trx) => {
    const due = await rows(
      trx,
      sql<{ id: number | string }>`select id from ${T(table)} where status = 'pending' and next_attempt_at <= ${now}
        order by id limit ${limit} for update skip locked`,
    );
    if (due.length === 0) return [];
    const ids = sql.join(due.map((r) => Number(r.id)));
    await sql`update ${T(table)} set next_attempt_at = ${leaseUntil} where id in (${ids})`.execute(trx);
    return rows(trx, sql<R>`select ${sql.join(columns.map((c) => sql.ref(c)))} from ${T(table)} where id in (${ids}) order by id`);
  });
}

/** A failed attempt: tried again at `retryAt`, or kept as failed when null; `also`: more of the table's columns set (`, col = value`). */
export async function attemptFailed(
  db: Db,
  table: string,
  id: number,
  attempts: number,
  retryAt: number | null,
  error: string,
  also: RawBuilder<unknown> = sql``,
) {
  const next = retryAt === null ? sql`status = 'failed'` : sql`next_attempt_at = ${retryAt}`;
  await sql`update ${T(table)} set attempts = ${attempts}, last_error = ${error.slice(0, ERROR_MAX)}, ${next}${also} where id = ${id}`.execute(
    db,
  );
}

/** The table's rows, newest first, at most `limit`, that meet every condition. */
export function newestFirst<R>(db: Db, table: string, columns: readonly string[], where: RawBuilder<unknown>[], limit: number) {
  const conditions = where.length === 0 ? sql`true` : sql.join(where, sql` and `);
  return rows(
    db,
    sql<R>`select ${sql.join(columns.map((c) => sql.ref(c)))} from ${T(table)} where ${conditions} order by id desc limit ${limit}`,
  );
}

/** The list's conditions: of a status, below an id (the next page). */
export const filters = (status: string | undefined, beforeId: number | undefined): RawBuilder<unknown>[] => [
  ...(status ? [sql`status = ${status}`] : []),
  ...(beforeId === undefined ? [] : [sql`id < ${beforeId}`]),
];

/** Sends the failed rows among `ids` (all failed ones when empty) again, due now; how many. The audit row with them. */
export function retryFailed(db: Db, ctx: MysqlContext, table: string, ids: number[], now: number, audit: AuditRecord | undefined) {
  return withAudit(db, ctx, audit, async (db) => {
    const only = ids.length > 0 ? sql`and id in (${sql.join(ids)})` : sql``;
    const result = await sql`update ${T(table)} set status = 'pending', attempts = 0, next_attempt_at = ${now}
      where status = 'failed' ${only}`.execute(db);
    return Number(result.numAffectedRows ?? 0);
  });
}
