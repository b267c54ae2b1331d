/**
 * The MySQL form of the shared 024-report-message-copies: each reported message kept once, named
 * by the reports that report it, and the index that finds a reporter's open reports.
 */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from '../context.js';
import { key, TABLE_OPTIONS } from './table-options.js';

export function soukReportMessageCopiesMigration(t: Tables): Migration {
  return {
    async up(db) {
      await sql`create table if not exists ${T(t.soukReportMessageCopies)} (
        message_id bigint unsigned not null primary key,
        message longtext not null,
        created_at bigint not null
      ) ${TABLE_OPTIONS}`.execute(db);
      await sql`create table if not exists ${T(t.soukReportMessages)} (
        report_id bigint unsigned not null,
        message_id bigint unsigned not null,
        primary key (report_id, message_id),
        key ${key(t.soukReportMessages, 'by_message')} (message_id)
      ) ${TABLE_OPTIONS}`.execute(db);
      await sql`create index ${key(t.soukReports, 'by_reporter')} on ${T(t.soukReports)} (reporter_id, closed_at)`.execute(db);
    },
    async down(db) {
      await sql`drop index ${key(t.soukReports, 'by_reporter')} on ${T(t.soukReports)}`.execute(db);
      await sql`drop table if exists ${T(t.soukReportMessages)}`.execute(db);
      await sql`drop table if exists ${T(t.soukReportMessageCopies)}`.execute(db);
    },
  };
}
