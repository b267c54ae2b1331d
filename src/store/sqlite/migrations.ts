/** SQLite's migrations, in order: the shared ones with SQLite's id types, and SQLite's own. */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Migrations } from '../common/migrate.js';
import { initialMigration } from '../common/migrations/001-initial.js';
import { dropMessagesConMigration } from '../common/migrations/002-drop-messages-con.js';
import { listingJsonAsWireMigration } from '../common/migrations/003-listing-json-as-wire.js';
import { messagesBySenderMigration } from '../common/migrations/006-messages-by-sender.js';
import { dropConversationsRecipientMigration } from '../common/migrations/007-drop-conversations-recipient.js';
import { accountsMigration } from '../common/migrations/008-accounts.js';
import { listingDetailsMigration } from '../common/migrations/009-listing-details.js';
import { conversationsByParticipantMigration } from '../common/migrations/010-conversations-by-participant.js';
import { eventsMigration } from '../common/migrations/011-events.js';
import { webhooksMigration } from '../common/migrations/012-webhooks.js';
import { pushMigration } from '../common/migrations/013-push.js';
import { messagesByConversationMigration } from '../common/migrations/014-messages-by-conversation.js';
import { revocationsBySubjectMigration } from '../common/migrations/015-revocations-by-subject.js';
import { pushDeviceSessionsMigration } from '../common/migrations/016-push-device-sessions.js';
import { listingStateIndexMigration } from './migrations/004-listing-state-index.js';
import { favouriteListingTriggerMigration } from './migrations/005-favourite-listing-trigger.js';

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
};
