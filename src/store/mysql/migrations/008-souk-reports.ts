/**
 * The MySQL form of the shared 018-reports: Souk's reports beside the site's tables. A listing's
 * report count stays where the plugin keeps it (the post meta `_abuse_report_by_visitor`).
 */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from '../context.js';
import { key, TABLE_OPTIONS } from './table-options.js';

export function soukReportsMigration(t: Tables): Migration {
  return {
    async up(db) {
      await sql`create table if not exists ${T(t.soukReports)} (
        id bigint unsigned not null auto_increment primary key,
        reporter_id bigint unsigned not null,
        kind varchar(16) not null,
        listing_id bigint unsigned null,
        con_id bigint unsigned null,
        message_id bigint unsigned null,
        reported_user_id bigint unsigned null,
        reason longtext not null,
        messages longtext not null,
        created_at bigint not null,
        closed_at bigint null,
        key ${key(t.soukReports, 'open')} (closed_at, id)
      ) ${TABLE_OPTIONS}`.execute(db);
    },
    async down(db) {
      await sql`drop table if exists ${T(t.soukReports)}`.execute(db);
    },
  };
}
