/**
 * Reports on Souk's own schema (migration 018), and the row form every database shares: the
 * reported messages are kept as JSON text of the domain's messages, as they were when reported.
 */
import { sql, type Kysely } from 'kysely';
import type { Message } from '../../domain/model.js';
import type { ReportAdmin, ReportRepository } from '../../domain/ports.js';
import type { NewReport, Report, ReportKind } from '../../domain/reports.js';
import { prepare, type QueryRunner } from './prepared.js';
import type { Database } from './schema.js';

/** A report row as any database gives it back; numbers may come as text (bigint columns). */
export interface ReportRow {
  id: number | string;
  reporter_id: number | string;
  kind: string;
  listing_id: number | string | null;
  con_id: number | string | null;
  message_id: number | string | null;
  reported_user_id: number | string | null;
  reason: string;
  messages: string;
  created_at: number | string;
  closed_at: number | string | null;
}

const orNull = (v: number | string | null) => (v === null ? null : Number(v));

export function toReport(row: ReportRow): Report {
  return {
    id: Number(row.id),
    reporterId: Number(row.reporter_id),
    kind: row.kind as ReportKind,
    listingId: orNull(row.listing_id),
    conId: orNull(row.con_id),
    messageId: orNull(row.message_id),
    reportedUserId: orNull(row.reported_user_id),
    reason: row.reason,
    messages: JSON.parse(row.messages) as Message[],
    createdAt: Number(row.created_at),
    closedAt: orNull(row.closed_at),
  };
}

/** A new report's column values, in the order of REPORT_INSERT_COLUMNS. */
export function reportValues(r: NewReport) {
  return [
    r.reporterId,
    r.kind,
    r.listingId,
    r.conId,
    r.messageId,
    r.reportedUserId,
    r.reason,
    JSON.stringify(r.messages),
    r.createdAt,
  ] as const;
}

export const REPORT_COLUMNS = [
  'id',
  'reporter_id',
  'kind',
  'listing_id',
  'con_id',
  'message_id',
  'reported_user_id',
  'reason',
  'messages',
  'created_at',
  'closed_at',
] as const;

const q = {
  insert: prepare(
    (
      db,
      reporterId: number,
      kind: string,
      listingId: number | null,
      conId: number | null,
      messageId: number | null,
      reportedUserId: number | null,
      reason: string,
      messages: string,
      at: number,
    ) =>
      db
        .insertInto('reports')
        .values({
          reporter_id: reporterId,
          kind,
          listing_id: listingId,
          con_id: conId,
          message_id: messageId,
          reported_user_id: reportedUserId,
          reason,
          messages,
          created_at: at,
          closed_at: null,
        })
        .returning('id'),
  ),
  listingCount: prepare((db, listingId: number) =>
    db
      .selectFrom('reports')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('listing_id', '=', listingId)
      .where('kind', '=', sql.lit('listing')),
  ),
};

/** Reports in a unit of work's transaction (`run`); `lockListing` as DatabaseStatements has it. */
export function reportRepository(run: QueryRunner, lockListing?: (run: QueryRunner, listingId: number) => Promise<void>): ReportRepository {
  return {
    async add(report) {
      const id = Number((await q.insert(run, ...reportValues(report))).rows[0]?.id);
      return { ...report, id, closedAt: null };
    },
    async listingReported(listingId) {
      // The report was added in this transaction: the count holds it, and with the listing held,
      // every report committed before it.
      await lockListing?.(run, listingId);
      return Number((await q.listingCount(run, listingId)).rows[0]?.n ?? 0);
    },
  };
}

export function reportAdmin(db: Kysely<Database>): ReportAdmin {
  return {
    async list({ open, closed, beforeId, limit }) {
      let query = db.selectFrom('reports').select(REPORT_COLUMNS).orderBy('id', 'desc').limit(limit);
      if (open) query = query.where('closed_at', 'is', null);
      if (closed) query = query.where('closed_at', 'is not', null);
      if (beforeId !== undefined) query = query.where('id', '<', beforeId);
      return (await query.execute()).map(toReport);
    },
    async find(id) {
      const row = await db.selectFrom('reports').select(REPORT_COLUMNS).where('id', '=', id).executeTakeFirst();
      return row && toReport(row);
    },
    async close(id, at) {
      const result = await db
        .updateTable('reports')
        .set({ closed_at: at })
        .where('id', '=', id)
        .where('closed_at', 'is', null)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) > 0) return 'closed';
      const row = await db.selectFrom('reports').select('id').where('id', '=', id).executeTakeFirst();
      return row ? 'already_closed' : 'not_found';
    },
    async madeBy(reporterId) {
      return (await db.selectFrom('reports').select(REPORT_COLUMNS).where('reporter_id', '=', reporterId).orderBy('id').execute()).map(
        toReport,
      );
    },
    async forgetMadeBy(reporterId) {
      const result = await db.deleteFrom('reports').where('reporter_id', '=', reporterId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
