/**
 * PostgreSQL's migrations, in order: the one list of them. The shared ones with PostgreSQL's id
 * types; Kysely runs each in a transaction. 004 and 005 are SQLite's alone; their names stay in the
 * list, applied as nothing, so that databases migrated before keep a history that matches it.
 *
 * Where a migration lives (docs/architecture.md, "Migrations"): one shared by SQLite and PostgreSQL
 * in `store/common/migrations/NNN-name.ts`; one a database has alone in
 * `store/<db>/migrations/NNN-name.ts`; each database's `store/<db>/migrations/index.ts` lists them
 * in order, under their file's name. That name is what the database records: it never changes, or
 * the migration would run again (test/store/migrations.test.ts). SQLite and PostgreSQL share one
 * numbering: a number one of them lacks stays in its list, applied as nothing.
 */
import { sql, type Migration } from 'kysely';
import type { Migrations } from '../../common/migrate.js';
import { initialMigration } from '../../common/migrations/001-initial.js';
import { dropMessagesConMigration } from '../../common/migrations/002-drop-messages-con.js';
import { listingJsonAsWireMigration } from '../../common/migrations/003-listing-json-as-wire.js';
import { messagesBySenderMigration } from '../../common/migrations/006-messages-by-sender.js';
import { dropConversationsRecipientMigration } from '../../common/migrations/007-drop-conversations-recipient.js';
import { accountsMigration } from '../../common/migrations/008-accounts.js';
import { listingDetailsMigration } from '../../common/migrations/009-listing-details.js';
import { conversationsByParticipantMigration } from '../../common/migrations/010-conversations-by-participant.js';
import { eventsMigration } from '../../common/migrations/011-events.js';
import { webhooksMigration } from '../../common/migrations/012-webhooks.js';
import { pushMigration } from '../../common/migrations/013-push.js';
import { messagesByConversationMigration } from '../../common/migrations/014-messages-by-conversation.js';
import { revocationsBySubjectMigration } from '../../common/migrations/015-revocations-by-subject.js';
import { pushDeviceSessionsMigration } from '../../common/migrations/016-push-device-sessions.js';
import { blocksMigration } from '../../common/migrations/017-blocks.js';
import { reportsMigration } from '../../common/migrations/018-reports.js';
import { userModerationMigration } from '../../common/migrations/019-user-moderation.js';
import { mailMigration } from '../../common/migrations/021-mail.js';
import { pusherMigration } from '../../common/migrations/025-pusher.js';
import { userRegisteredMigration } from '../../common/migrations/022-user-registered.js';
import { messageEditsMigration } from '../../common/migrations/029-message-edits.js';
import { messageFilesMigration } from '../../common/migrations/023-message-files.js';
import { reportMessageCopiesMigration } from '../../common/migrations/024-report-message-copies.js';
import { serverApiMigration } from '../../common/migrations/026-server-api.js';
import { pushReachedShowPresenceMigration } from '../../common/migrations/027-push-reached-show-presence.js';
import { staffMigration } from '../../common/migrations/030-staff.js';
import { consoleLookupsMigration } from '../../common/migrations/033-console-lookups.js';
import { offersByConversationMigration } from '../../common/migrations/034-offers-by-conversation.js';
import { postgresMessageCountMigration } from '../../common/migrations/035-conversation-message-count.js';
import { favouritesByUserMigration } from '../../common/migrations/036-favourites-by-user.js';

const SQLITE_ONLY: Migration = { up: async () => {}, down: async () => {} };

export const POSTGRES_MIGRATIONS: Migrations = {
  '001-initial': initialMigration({ serial: sql`bigserial`, serialPrimaryKey: (c) => c.primaryKey(), int64: 'bigint' }),
  '002-drop-messages-con': dropMessagesConMigration,
  '003-listing-json-as-wire': listingJsonAsWireMigration,
  '004-listing-state-index': SQLITE_ONLY,
  '005-favourite-listing-trigger': SQLITE_ONLY,
  '006-messages-by-sender': messagesBySenderMigration,
  '007-drop-conversations-recipient': dropConversationsRecipientMigration,
  '008-accounts': accountsMigration('bigint'),
  '009-listing-details': listingDetailsMigration('bigint'),
  '010-conversations-by-participant': conversationsByParticipantMigration,
  '011-events': eventsMigration('bigint'),
  '012-webhooks': webhooksMigration({ serial: sql`bigserial`, serialPrimaryKey: (c) => c.primaryKey(), int64: 'bigint' }),
  '013-push': pushMigration({ serial: sql`bigserial`, serialPrimaryKey: (c) => c.primaryKey(), int64: 'bigint' }),
  '014-messages-by-conversation': messagesByConversationMigration,
  '015-revocations-by-subject': revocationsBySubjectMigration('bigint'),
  '016-push-device-sessions': pushDeviceSessionsMigration('bigint'),
  '017-blocks': blocksMigration({ serial: sql`bigserial`, serialPrimaryKey: (c) => c.primaryKey(), int64: 'bigint' }),
  '018-reports': reportsMigration({ serial: sql`bigserial`, serialPrimaryKey: (c) => c.primaryKey(), int64: 'bigint' }),
  '019-user-moderation': userModerationMigration('bigint'),
  '021-mail': mailMigration({ serial: sql`bigserial`, serialPrimaryKey: (c) => c.primaryKey(), int64: 'bigint' }),
  '022-user-registered': userRegisteredMigration('bigint'),
  '023-message-files': messageFilesMigration('bigint'),
  '024-report-message-copies': reportMessageCopiesMigration('bigint'),
  '025-pusher': pusherMigration({ serial: sql`bigserial`, serialPrimaryKey: (c) => c.primaryKey(), int64: 'bigint' }),
  '026-server-api': serverApiMigration({ serial: sql`bigserial`, serialPrimaryKey: (c) => c.primaryKey(), int64: 'bigint' }),
  '027-push-reached-show-presence': pushReachedShowPresenceMigration,
  '029-message-edits': messageEditsMigration({ serial: sql`bigserial`, serialPrimaryKey: (c) => c.primaryKey(), int64: 'bigint' }),
  '030-staff': staffMigration({ serial: sql`bigserial`, serialPrimaryKey: (c) => c.primaryKey(), int64: 'bigint' }),
  '033-console-lookups': consoleLookupsMigration,
  '034-offers-by-conversation': offersByConversationMigration,
  '035-conversation-message-count': postgresMessageCountMigration,
  '036-favourites-by-user': favouritesByUserMigration,
};
