/**
 * Reports on a WordPress database: Souk's own `{prefix}souk_reports`, and a listing's report
 * count where the plugin keeps it, the post meta `_abuse_report_by_visitor` (the plugin's admin
 * shows it), incremented as the plugin does: the number read as PHP's absint, plus one.
 */
import { sql } from 'kysely';
import type { ReportAdmin, ReportRepository } from '../../domain/ports.js';
import type { Message } from '../../domain/model.js';
import type { Report } from '../../domain/reports.js';
import { copiesOf, inBatches, namedMessages, REPORT_COLUMNS, reportValues, toReport, type ReportRow } from '../common/reports.js';
import { rows, T, type Db, type MysqlContext } from './context.js';
import { withAudit } from './server-api.js';

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
      const id = Number(result.insertId);
      const { copies, links } = copiesOf(id, report.messages, report.createdAt);
      if (copies.length > 0) {
        // Kept once: a message reported before keeps its first copy.
        const values = sql.join(copies.map((c) => sql`(${c.message_id}, ${c.message}, ${c.created_at})`));
        await db.executeQuery(
          sql`insert ignore into ${T(t.soukReportMessageCopies)} (message_id, message, created_at) values ${values}`.compile(db),
        );
        const named = sql.join(links.map((l) => sql`(${l.report_id}, ${l.message_id})`));
        await db.executeQuery(sql`insert into ${T(t.soukReportMessages)} (report_id, message_id) values ${named}`.compile(db));
      }
      return { ...report, id, closedAt: null };
    },
    async hasOpen(reporterId, about) {
      await enter();
      const subject =
        'listingId' in about
          ? sql`kind = 'listing' and listing_id = ${about.listingId}`
          : sql`kind <> 'listing' and con_id = ${about.conId}`;
      const found = await rows(
        db,
        sql`select id from ${T(t.soukReports)} where reporter_id = ${reporterId} and closed_at is null and ${subject} limit 1`,
      );
      return found.length > 0;
    },
    async listingReports(listingId) {
      await enter();
      const [meta] = await rows(
        db,
        sql<{ meta_value: string | null }>`select meta_value from ${T(t.postmeta)}
          where post_id = ${listingId} and meta_key = ${ABUSE_REPORT_META} order by meta_id limit 1`,
      );
      return absint(meta?.meta_value);
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
  const links = T(ctx.t.soukReportMessages);
  const copies = T(ctx.t.soukReportMessageCopies);
  /** The reports of the rows, each with the messages it names. */
  async function withMessages(found: ReportRow[]): Promise<Report[]> {
    const named = new Map<number, Message[]>();
    for (const ids of inBatches(found.map((r) => Number(r.id)))) {
      const linked = await rows(
        db,
        sql<{ report_id: number; message: string }>`select l.report_id, c.message from ${links} l
          join ${copies} c on c.message_id = l.message_id where l.report_id in (${sql.join(ids)})`,
      );
      for (const [id, messages] of namedMessages(linked)) named.set(id, messages);
    }
    return found.map((row) => toReport(row, named.get(Number(row.id))));
  }
  return {
    async list({ open, closed, beforeId, limit }) {
      const conditions = [
        ...(open ? [sql`closed_at is null`] : []),
        ...(closed ? [sql`closed_at is not null`] : []),
        ...(beforeId === undefined ? [] : [sql`id < ${beforeId}`]),
      ];
      const where = conditions.length ? sql`where ${sql.join(conditions, sql` and `)}` : sql``;
      return withMessages(await rows(db, sql<ReportRow>`select ${columns} from ${table} ${where} order by id desc limit ${limit}`));
    },
    async find(id) {
      const [row] = await rows(db, sql<ReportRow>`select ${columns} from ${table} where id = ${id}`);
      return row && toReport(row);
    },
    async close(id, at, audit) {
      const closed = await withAudit(db, ctx, audit, async (db) =>
        Number((await sql`update ${table} set closed_at = ${at} where id = ${id} and closed_at is null`.execute(db)).numAffectedRows ?? 0),
      );
      if (closed > 0) return 'closed';
      return (await rows(db, sql`select id from ${table} where id = ${id}`)).length > 0 ? 'already_closed' : 'not_found';
    },
    async madeBy(reporterId) {
      return withMessages(await rows(db, sql<ReportRow>`select ${columns} from ${table} where reporter_id = ${reporterId} order by id`));
    },
    async against(reportedUserId, limit) {
      return withMessages(
        await rows(
          db,
          sql<ReportRow>`select ${columns} from ${table} where reported_user_id = ${reportedUserId} order by id desc limit ${limit}`,
        ),
      );
    },
    async forgetMadeBy(reporterId) {
      return db.transaction().execute(async (trx) => {
        const named = await rows(
          trx,
          sql<{
            message_id: number;
          }>`select l.message_id from ${links} l join ${table} r on r.id = l.report_id where r.reporter_id = ${reporterId}`,
        );
        await sql`delete l from ${links} l join ${table} r on r.id = l.report_id where r.reporter_id = ${reporterId}`.execute(trx);
        const result = await sql`delete from ${table} where reporter_id = ${reporterId}`.execute(trx);
        // Copies no other report names go with the reports.
        for (const ids of inBatches(named.map((r) => Number(r.message_id)))) {
          await sql`delete c from ${copies} c left join ${links} l on l.message_id = c.message_id
            where c.message_id in (${sql.join(ids)}) and l.message_id is null`.execute(trx);
        }
        return Number(result.numAffectedRows ?? 0);
      });
    },
  };
}
