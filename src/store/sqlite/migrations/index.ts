/**
 * SQLite's migrations, in order: the one list of them. The shared ones with SQLite's id types, and
 * SQLite's own (004, 005).
 *
 * Where a migration lives (docs/architecture.md, "Migrations"): one shared by SQLite and PostgreSQL
 * in `store/common/migrations/NNN-name.ts`; one a database has alone in
 * `store/<db>/migrations/NNN-name.ts`; each database's `store/<db>/migrations/index.ts` lists them
 * in order, under their file's name. That name is what the database records: it never changes, or
 * the migration would run again (test/store/migrations.test.ts). SQLite and PostgreSQL share one
 * numbering: a number one of them lacks stays in its list, applied as nothing.
 */
import { sql, type Kysely, type Migration } from 'kysely';
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
import { sqliteMessageCountMigration } from '../../common/migrations/035-conversation-message-count.js';
import { sqliteFavouritesByUserMigration } from '../../common/migrations/036-favourites-by-user.js';
import { listingStateIndexMigration } from './004-listing-state-index.js';
import { favouriteListingTriggerMigration } from './005-favourite-listing-trigger.js';

/** Kysely runs SQLite's migrations outside a transaction: one that changes several things runs in its own. */
function atomically(migration: Migration): Migration {
  return {
    up: (db: Kysely<unknown>) => db.transaction().execute((trx) => migration.up(trx)),
    down: (db: Kysely<unknown>) => db.transaction().execute((trx) => migration.down!(trx)),
  };
}

export const SQLITE_MIGRATIONS: Migrations = {
  '001-initial': initialMigration({ serial: sql`integer`, serialPrimaryKey: (c) => c.primaryKey().autoIncrement(), int64: 'integer' }),
  '002-drop-messages-con': dropMessagesConMigration,
  '003-listing-json-as-wire': listingJsonAsWireMigration,
  '004-listing-state-index': listingStateIndexMigration,
  '005-favourite-listing-trigger': favouriteListingTriggerMigration,
  '006-messages-by-sender': atomically(messagesBySenderMigration),
  '007-drop-conversations-recipient': dropConversationsRecipientMigration,
  '008-accounts': atomically(accountsMigration('integer')),
  '009-listing-details': listingDetailsMigration('integer'),
  '010-conversations-by-participant': atomically(conversationsByParticipantMigration),
  '011-events': atomically(eventsMigration('integer')),
  '012-webhooks': atomically(
    webhooksMigration({ serial: sql`integer`, serialPrimaryKey: (c) => c.primaryKey().autoIncrement(), int64: 'integer' }),
  ),
  '013-push': atomically(
    pushMigration({ serial: sql`integer`, serialPrimaryKey: (c) => c.primaryKey().autoIncrement(), int64: 'integer' }),
  ),
  '014-messages-by-conversation': messagesByConversationMigration,
  '015-revocations-by-subject': atomically(revocationsBySubjectMigration('integer')),
  '016-push-device-sessions': atomically(pushDeviceSessionsMigration('integer')),
  '017-blocks': atomically(
    blocksMigration({ serial: sql`integer`, serialPrimaryKey: (c) => c.primaryKey().autoIncrement(), int64: 'integer' }),
  ),
  '018-reports': atomically(
    reportsMigration({ serial: sql`integer`, serialPrimaryKey: (c) => c.primaryKey().autoIncrement(), int64: 'integer' }),
  ),
  '019-user-moderation': atomically(userModerationMigration('integer')),
  '021-mail': atomically(
    mailMigration({ serial: sql`integer`, serialPrimaryKey: (c) => c.primaryKey().autoIncrement(), int64: 'integer' }),
  ),
  '022-user-registered': atomically(userRegisteredMigration('integer')),
  '023-message-files': atomically(messageFilesMigration('integer')),
  '024-report-message-copies': atomically(reportMessageCopiesMigration('integer')),
  '025-pusher': atomically(
    pusherMigration({ serial: sql`integer`, serialPrimaryKey: (c) => c.primaryKey().autoIncrement(), int64: 'integer' }),
  ),
  '026-server-api': atomically(
    serverApiMigration({ serial: sql`integer`, serialPrimaryKey: (c) => c.primaryKey().autoIncrement(), int64: 'integer' }),
  ),
  '027-push-reached-show-presence': atomically(pushReachedShowPresenceMigration),
  '029-message-edits': atomically(
    messageEditsMigration({ serial: sql`integer`, serialPrimaryKey: (c) => c.primaryKey().autoIncrement(), int64: 'integer' }),
  ),
  '030-staff': atomically(
    staffMigration({ serial: sql`integer`, serialPrimaryKey: (c) => c.primaryKey().autoIncrement(), int64: 'integer' }),
  ),
  '033-console-lookups': atomically(consoleLookupsMigration),
  '034-offers-by-conversation': atomically(offersByConversationMigration),
  '035-conversation-message-count': atomically(sqliteMessageCountMigration),
  '036-favourites-by-user': atomically(sqliteFavouritesByUserMigration),
};
