/**
 * Souk's own tables on a WordPress database, in order: the one list of them. Named
 * `{prefix}souk_...`, beside the site's and never instead of them: uninstalling Souk is dropping
 * them. They have their own numbering, apart from SQLite's and PostgreSQL's, and the MySQL form of
 * a shared migration says which it follows.
 *
 * Where a migration lives (docs/architecture.md, "Migrations"): one shared by SQLite and PostgreSQL
 * in `store/common/migrations/NNN-name.ts`; one a database has alone in
 * `store/<db>/migrations/NNN-name.ts`; each database's `store/<db>/migrations/index.ts` lists them
 * in order, under their file's name. That name is what the database records: it never changes, or
 * the migration would run again (test/store/migrations.test.ts).
 */
import type { Migrations } from '../../common/migrate.js';
import type { Tables } from '../context.js';
import { soukTablesMigration } from './001-souk-tables.js';
import { soukEventsMigration } from './002-souk-events.js';
import { soukWebhooksMigration } from './003-souk-webhooks.js';
import { soukPushMigration } from './004-souk-push.js';
import { soukRevocationsBySubjectMigration } from './005-souk-revocations-by-subject.js';
import { soukPushDeviceSessionsMigration } from './006-souk-push-device-sessions.js';
import { soukReportsMigration } from './008-souk-reports.js';
import { soukModerationBarrierMigration } from './009-souk-moderation-barrier.js';
import { soukMailMigration } from './011-souk-mail.js';
import { soukMessageFilesMigration } from './012-souk-message-files.js';
import { soukReportMessageCopiesMigration } from './013-souk-report-message-copies.js';
import { soukPusherMigration } from './014-souk-pusher.js';
import { soukServerApiMigration } from './015-souk-server-api.js';
import { soukPushReachedMigration } from './016-souk-push-reached.js';
import { soukMessageEditsMigration } from './018-souk-message-edits.js';
import { soukStaffMigration } from './019-souk-staff.js';
import { soukReportsAgainstMigration } from './022-souk-reports-against.js';

export function mysqlMigrations(t: Tables): Migrations {
  return {
    '001-souk-tables': soukTablesMigration(t),
    '002-souk-events': soukEventsMigration(t),
    '003-souk-webhooks': soukWebhooksMigration(t),
    '004-souk-push': soukPushMigration(t),
    '005-souk-revocations-by-subject': soukRevocationsBySubjectMigration(t),
    '006-souk-push-device-sessions': soukPushDeviceSessionsMigration(t),
    '008-souk-reports': soukReportsMigration(t),
    '009-souk-moderation-barrier': soukModerationBarrierMigration(t),
    '011-souk-mail': soukMailMigration(t),
    '012-souk-message-files': soukMessageFilesMigration(t),
    '013-souk-report-message-copies': soukReportMessageCopiesMigration(t),
    '014-souk-pusher': soukPusherMigration(t),
    '015-souk-server-api': soukServerApiMigration(t),
    '016-souk-push-reached': soukPushReachedMigration(t),
    '018-souk-message-edits': soukMessageEditsMigration(t),
    '019-souk-staff': soukStaffMigration(t),
    '022-souk-reports-against': soukReportsAgainstMigration(t),
  };
}
