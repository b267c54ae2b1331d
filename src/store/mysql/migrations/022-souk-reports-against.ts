/**
 * The MySQL form of the shared 033-console-lookups, for Souk's own table only: the reports against
 * a user (the console's user page). The site's tables are the plugin's and WordPress's: Souk adds
 * no index to them (docs/running-beside-wordpress.md lists those an operator may add).
 */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from '../context.js';
import { key } from './table-options.js';

export function soukReportsAgainstMigration(t: Tables): Migration {
  return {
    async up(db) {
      await sql`create index ${key(t.soukReports, 'by_reported')} on ${T(t.soukReports)} (reported_user_id, id)`.execute(db);
    },
    async down(db) {
      await sql`drop index ${key(t.soukReports, 'by_reported')} on ${T(t.soukReports)}`.execute(db);
    },
  };
}
