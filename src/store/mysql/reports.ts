/**
 * Reports on a WordPress database: Souk's own `{prefix}souk_reports`, and a listing's report
 * count where the plugin keeps it, the post meta `_abuse_report_by_visitor` (the plugin's admin
 * shows it), incremented as the plugin does: the number read as PHP's absint, plus one.
 */
import { sql } from 'kysely';
import type { ReportAdmin, ReportRepository } from '../../domain/ports.js';
import { REPORT_COLUMNS, reportValues, toReport, type ReportRow } from '../common/reports.js';
import { rows, T, type Db, type MysqlContext } from './context.js';

export const ABUSE_REPORT_META = '_abuse_report_by_visitor';

/** PHP's absint of a meta value: its leading integer (0 when none), without sign. */
export function absint(value: string | null | undefined): number {
  const match = /^\s*[+-]?(\d+)/.exec(value ?? '');
  return match ? Math.min(Number(match[1]), Number.MAX_SAFE_INTEGER) : 0;
}

const columns = sql.raw(REPORT_COLUMNS.join(', '));

/** Reports in a unit of work: `enter` begins its transaction (and takes the writer's lock) before the first statement. */
export function mysqlReports(db: Db, ctx: MysqlContext, enter: () => Promise<void>): ReportRepository {
  const { t } = ctx;
  return {
    async add(report) {
      await enter();
      const [reporterId, kind, listingId, conId, messageId, reportedUserId, reason, messages, at] = reportValues(report);
      const result = await db.executeQuery(
        sql`insert into ${T(t.soukReports)} (reporter_id, kind, listing_id, con_id, message_id, reported_user_id, reason, messages, created_at)
          values (${reporterId}, ${kind}, ${listingId}, ${conId}, ${messageId}, ${reportedUserId}, ${reason}, ${messages}, ${at})`.compile(
          db,
        ),
      );
      return { ...report, id: Number(result.insertId), closedAt: null };
    },
    async listingReported(listingId) {
      await enter();
      // The post's row locked: two reporters of one listing (each holding only their own lock)
      // take their turns, so both count, and the meta row is written once, never twice.
      await rows(db, sql`select ID from ${T(t.posts)} where ID = ${listingId} for update`);
      const [meta] = await rows(
        db,
        sql<{ meta_value: string | null }>`select meta_value from ${T(t.postmeta)}
          where post_id = ${listingId} and meta_key = ${ABUSE_REPORT_META} order by meta_id limit 1`,
      );
      const count = absint(meta?.meta_value) + 1;
      await db.executeQuery(
        (meta
          ? sql`update ${T(t.postmeta)} set meta_value = ${String(count)} where post_id = ${listingId} and meta_key = ${ABUSE_REPORT_META}`
          : sql`insert into ${T(t.postmeta)} (post_id, meta_key, meta_value) values (${listingId}, ${ABUSE_REPORT_META}, ${String(count)})`
        ).compile(db),
      );
      return count;
    },
  };
}

export function mysqlReportAdmin(db: Db, ctx: MysqlContext): ReportAdmin {
  const table = T(ctx.t.soukReports);
  return {
    async list({ open, closed, beforeId, limit }) {
      const conditions = [
        ...(open ? [sql`closed_at is null`] : []),
        ...(closed ? [sql`closed_at is not null`] : []),
        ...(beforeId === undefined ? [] : [sql`id < ${beforeId}`]),
      ];
      const where = conditions.length ? sql`where ${sql.join(conditions, sql` and `)}` : sql``;
      return (await rows(db, sql<ReportRow>`select ${columns} from ${table} ${where} order by id desc limit ${limit}`)).map(toReport);
    },
    async find(id) {
      const [row] = await rows(db, sql<ReportRow>`select ${columns} from ${table} where id = ${id}`);
      return row && toReport(row);
    },
    async close(id, at) {
      const result = await sql`update ${table} set closed_at = ${at} where id = ${id} and closed_at is null`.execute(db);
      if (Number(result.numAffectedRows ?? 0) > 0) return 'closed';
      return (await rows(db, sql`select id from ${table} where id = ${id}`)).length > 0 ? 'already_closed' : 'not_found';
    },
    async madeBy(reporterId) {
      return (await rows(db, sql<ReportRow>`select ${columns} from ${table} where reporter_id = ${reporterId} order by id`)).map(toReport);
    },
    async forgetMadeBy(reporterId) {
      const result = await sql`delete from ${table} where reporter_id = ${reporterId}`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
