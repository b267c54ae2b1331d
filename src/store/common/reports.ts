/**
 * Reports on Souk's own schema (migrations 018, 024), and the row form every database shares: each
 * reported message is kept once, as JSON text of the domain's message as it was when first
 * reported (`report_message_copies`), named by the reports that report it (`report_messages`). A
 * report made before migration 024 keeps its own copies in `reports.messages`; later ones store `[]` there.
 */
import { sql, type Kysely } from 'kysely';
import type { Message } from '../../domain/model.js';
import type { ReportAdmin, ReportRepository } from '../../domain/ports.js';
import type { NewReport, Report, ReportKind } from '../../domain/reports.js';
import { prepare, type QueryRunner } from './prepared.js';
import type { Database } from './schema.js';
import { withAudit } from './server-api.js';

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

/** A report row with the messages it names (none: its own legacy copies, or none at all). */
export function toReport(row: ReportRow, named: Message[] = []): Report {
  return {
    id: Number(row.id),
    reporterId: Number(row.reporter_id),
    kind: row.kind as ReportKind,
    listingId: orNull(row.listing_id),
    conId: orNull(row.con_id),
    messageId: orNull(row.message_id),
    reportedUserId: orNull(row.reported_user_id),
    reason: row.reason,
    messages: named.length > 0 ? named : (JSON.parse(row.messages) as Message[]),
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
    // The messages are kept apart, once each (copiesOf).
    '[]',
    r.createdAt,
  ] as const;
}

/** The copies of a report's messages (report_message_copies) and its links to them (report_messages). */
export function copiesOf(reportId: number, messages: readonly Message[], at: number) {
  return {
    copies: messages.map((m) => ({ message_id: m.id, message: JSON.stringify(m), created_at: at })),
    links: messages.map((m) => ({ report_id: reportId, message_id: m.id })),
  };
}

/** Batches of at most this many ids in one `in (...)` list. */
const IDS_PER_READ = 500;

export function inBatches<T>(items: readonly T[], size = IDS_PER_READ): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}

/** The messages each report names, oldest first, from rows of (report id, message JSON). */
export function namedMessages(rows: ReadonlyArray<{ report_id: number | string; message: string }>): Map<number, Message[]> {
  const byReport = new Map<number, Message[]>();
  for (const row of rows) {
    const id = Number(row.report_id);
    const list = byReport.get(id) ?? [];
    list.push(JSON.parse(row.message) as Message);
    byReport.set(id, list);
  }
  for (const list of byReport.values()) list.sort((a, b) => a.id - b.id);
  return byReport;
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
  /** The reporter's open report about the listing. */
  openAboutListing: prepare((db, reporterId: number, listingId: number) =>
    db
      .selectFrom('reports')
      .select('id')
      .where('reporter_id', '=', reporterId)
      .where('closed_at', 'is', null)
      .where('kind', '=', sql.lit('listing'))
      .where('listing_id', '=', listingId)
      .limit(1),
  ),
  /** The reporter's open report about the conversation, or a message in it. */
  openAboutConversation: prepare((db, reporterId: number, conId: number) =>
    db
      .selectFrom('reports')
      .select('id')
      .where('reporter_id', '=', reporterId)
      .where('closed_at', 'is', null)
      .where('kind', '<>', sql.lit('listing'))
      .where('con_id', '=', conId)
      .limit(1),
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
      const { copies, links } = copiesOf(id, report.messages, report.createdAt);
      if (copies.length > 0) {
        // Kept once: a message reported before keeps its first copy.
        await run.execute(
          run.db
            .insertInto('report_message_copies')
            .values(copies)
            .onConflict((oc) => oc.column('message_id').doNothing())
            .compile(),
        );
        await run.execute(run.db.insertInto('report_messages').values(links).compile());
      }
      return { ...report, id, closedAt: null };
    },
    async hasOpen(reporterId, about) {
      const found =
        'listingId' in about
          ? await q.openAboutListing(run, reporterId, about.listingId)
          : await q.openAboutConversation(run, reporterId, about.conId);
      return found.rows.length > 0;
    },
    async listingReports(listingId) {
      await lockListing?.(run, listingId);
      return Number((await q.listingCount(run, listingId)).rows[0]?.n ?? 0);
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
  /** The reports of the rows, each with the messages it names. */
  async function withMessages(rows: ReportRow[]): Promise<Report[]> {
    const named = new Map<number, Message[]>();
    for (const ids of inBatches(rows.map((r) => Number(r.id)))) {
      const found = await db
        .selectFrom('report_messages as l')
        .innerJoin('report_message_copies as c', 'c.message_id', 'l.message_id')
        .select(['l.report_id', 'c.message'])
        .where('l.report_id', 'in', ids)
        .execute();
      for (const [id, messages] of namedMessages(found)) named.set(id, messages);
    }
    return rows.map((row) => toReport(row, named.get(Number(row.id))));
  }
  return {
    async list({ open, closed, beforeId, limit }) {
      let query = db.selectFrom('reports').select(REPORT_COLUMNS).orderBy('id', 'desc').limit(limit);
      if (open) query = query.where('closed_at', 'is', null);
      if (closed) query = query.where('closed_at', 'is not', null);
      if (beforeId !== undefined) query = query.where('id', '<', beforeId);
      return withMessages(await query.execute());
    },
    async find(id) {
      const row = await db.selectFrom('reports').select(REPORT_COLUMNS).where('id', '=', id).executeTakeFirst();
      return row && toReport(row);
    },
    async close(id, at, audit) {
      const closed = await withAudit(db, audit, async (db) => {
        const result = await db
          .updateTable('reports')
          .set({ closed_at: at })
          .where('id', '=', id)
          .where('closed_at', 'is', null)
          .executeTakeFirst();
        return Number(result.numUpdatedRows);
      });
      if (closed > 0) return 'closed';
      const row = await db.selectFrom('reports').select('id').where('id', '=', id).executeTakeFirst();
      return row ? 'already_closed' : 'not_found';
    },
    async madeBy(reporterId) {
      return withMessages(
        await db.selectFrom('reports').select(REPORT_COLUMNS).where('reporter_id', '=', reporterId).orderBy('id').execute(),
      );
    },
    async against(reportedUserId, limit) {
      return withMessages(
        await db
          .selectFrom('reports')
          .select(REPORT_COLUMNS)
          .where('reported_user_id', '=', reportedUserId)
          .orderBy('id', 'desc')
          .limit(limit)
          .execute(),
      );
    },
    async forgetMadeBy(reporterId) {
      return db.transaction().execute(async (trx) => {
        const named = trx
          .selectFrom('report_messages as l')
          .innerJoin('reports as r', 'r.id', 'l.report_id')
          .select('l.message_id')
          .where('r.reporter_id', '=', reporterId);
        const messageIds = (await named.execute()).map((r) => Number(r.message_id));
        await trx
          .deleteFrom('report_messages')
          .where('report_id', 'in', trx.selectFrom('reports').select('id').where('reporter_id', '=', reporterId))
          .execute();
        const result = await trx.deleteFrom('reports').where('reporter_id', '=', reporterId).executeTakeFirst();
        // Copies no other report names go with the reports.
        for (const ids of inBatches(messageIds)) {
          await trx
            .deleteFrom('report_message_copies')
            .where('message_id', 'in', ids)
            .where((eb) =>
              eb.not(
                eb.exists(
                  eb
                    .selectFrom('report_messages as l')
                    .select('l.message_id')
                    .whereRef('l.message_id', '=', 'report_message_copies.message_id'),
                ),
              ),
            )
            .execute();
        }
        return Number(result.numDeletedRows);
      });
    },
  };
}
