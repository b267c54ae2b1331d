/**
 * What every database's store offers the rest of Souk (sqlite/, postgres/): the use cases' ports,
 * the shared settings, migrations and health. Also the parts of a store that do not depend on
 * the database: readiness, the catalog's transaction, the settings.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import {
  CATALOG_VERSION,
  type AccountRepository,
  type CatalogUnitOfWork,
  type EventLog,
  type EventSignals,
  type LiveChannel,
  type EventTicketRepository,
  type FavouriteListRepository,
  type ReportAdmin,
  type Repositories,
  type RevocationRepository,
  type SettingsRepository,
  type SiteConfigReader,
  type SitePresentation,
  type StoreHealth,
  type UnitOfWork,
  type WebhookOutbox,
} from '../../domain/ports.js';
import type { MailOutbox, MailPreferenceRepository, MailSenderIdentity, PresenceRepository } from '../../domain/mail.js';
import type { PushDeviceRepository, PushOutbox } from '../../domain/push.js';
import type { PusherOutbox, PusherQueueing, SitePusherApp } from '../../domain/pusher.js';
import type { FileReferences } from '../../domain/files/references.js';
import type { AuditLog } from '../../domain/audit.js';
import type { ServerKeyRepository } from '../../domain/server-keys.js';
import { accountRepository, revocationRepository } from './accounts.js';
import { catalogRepository } from './catalog.js';
import { eventTicketRepository } from './events.js';
import { favouriteListRepository } from './favourite-list.js';
import { kyselyRunner, type QueryRunner } from './prepared.js';
import { reportAdmin } from './reports.js';
import { auditLog, serverKeyRepository } from './server-api.js';
import { staffRepository } from './staff.js';
import { consoleReads } from './console-reads.js';
import type { ConsoleReads } from '../../domain/staff/reads.js';
import type { StaffRepository } from '../../domain/staff/staff.js';
import type { Database } from './schema.js';
import { settingsRepository } from './settings.js';

export type StoreKind = 'sqlite' | 'postgres' | 'mysql';

export interface DbOptions {
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  /** PostgreSQL: send the request path's queries as named statements (postgres/runner.ts); default true. */
  preparedStatements?: boolean;
  /** PostgreSQL, with named statements: join what needs no answer of its own into the next message (postgres/transaction-runner.ts); default true. */
  joinStatements?: boolean;
  /** SQLite: the page cache in MB; default 16. */
  cacheMb?: number;
  /** SQLite: how much of the file is read through a memory map, in MB; default 0 (none). */
  mmapMb?: number;
  /**
   * SQLite: create the database file's folder when it is missing. Only for the default path: a
   * folder the operator named must exist, so a typo in it is not a new, empty marketplace.
   */
  createSqliteFolder?: boolean;
  /** MySQL: the WordPress site's table prefix; default wp_. */
  wordpressTablePrefix?: string;
  /** Where every event is also delivered (WEBHOOK_URLS): the recorder writes their outbox rows. */
  webhookUrls?: readonly string[];
  /** Push notifications on: a new message's recipient with a device gets a push outbox row. */
  push?: boolean;
  /** Mail on (SMTP_URL set): a new message joins its recipient's pending mail (MailQueueing). */
  mail?: MailQueueing;
  /** Whether a Pusher app is set now: the events then join the Pusher outbox (docs/pusher.md). */
  pusher?: PusherQueueing;
  /** MySQL: how often an instance with streams open polls the event log for other instances' events; default 250. */
  eventPollMs?: number;
}

/** How a new message joins its recipient's pending mail (docs/mail.md). */
export interface MailQueueing {
  /** The mail is due this long after the message (mail_delay_s in force, read at each message). */
  delayMs: number;
  /**
   * Whether this instance knows the recipient to be online now. A message to an online user is
   * not mailed (the plugin mails only those who are not), so it queues nothing; one online only
   * on another instance is queued, and the sender skips it then.
   */
  onlineHere(userId: number, at: number): boolean;
}

/** A database file or folder that other users of the host can read. */
export interface LoosePermission {
  path: string;
  /** Octal, such as 0644. */
  mode: string;
}

export interface Store extends UnitOfWork, CatalogUnitOfWork, StoreHealth, SiteConfigReader {
  /** Which database this is; for tests and tools, never for choosing SQL outside the store. */
  readonly dialect: StoreKind;
  /** Repositories outside any transaction, for reads. */
  readonly repos: Repositories;
  readonly settings: SettingsRepository;
  readonly accounts: AccountRepository;
  readonly revocations: RevocationRepository;
  /** The favourites list's reads. */
  readonly favouriteLists: FavouriteListRepository;
  /** The reports, for the operator (`souk reports`). */
  readonly reports: ReportAdmin;
  /** The server API's keys (docs/server-api.md). */
  readonly serverKeys: ServerKeyRepository;
  /** The audit log of the operators' changes. */
  readonly audit: AuditLog;
  /** The console's staff. */
  readonly staff: StaffRepository;
  /** What the console reads that the chat never does. */
  readonly consoleReads: ConsoleReads;
  /** The users' event logs, for their streams. */
  readonly eventLog?: EventLog;
  /** Which users got new events, as they commit (with eventLog). */
  readonly eventSignals?: EventSignals;
  /** Messages never stored, to the other instances (PostgreSQL); absent where there are none to reach. */
  readonly liveChannel?: LiveChannel;
  /** The streams' single-use tickets (with eventLog). */
  readonly eventTickets?: EventTicketRepository;
  /** The webhook outbox (with eventLog). */
  readonly webhooks?: WebhookOutbox;
  /** The devices' Expo push tokens (with eventLog). */
  readonly pushDevices?: PushDeviceRepository;
  /** The push outbox (with eventLog). */
  readonly pushOutbox?: PushOutbox;
  /** The Pusher outbox (with eventLog). */
  readonly pusherOutbox?: PusherOutbox;
  /** A WordPress site's Pusher app (`rtcl_chat_settings`), read anew at each call; undefined when off or incomplete. */
  sitePusherApp?(): Promise<SitePusherApp | undefined>;
  /** On a WordPress site: whether its user holds a capability, directly or by a role (the console's administrators). */
  siteCapabilities?: { holds(userId: number, capability: string): Promise<boolean> };
  /** Which stored files messages name (domain/files/references.ts). */
  readonly fileReferences: FileReferences;
  /** The mail outbox (with eventLog). */
  readonly mailOutbox?: MailOutbox;
  /** When users were last seen (with eventLog). */
  readonly presence?: PresenceRepository;
  /** The users' choice of mail (with eventLog). */
  readonly mailPreferences?: MailPreferenceRepository;
  /** Who the site's mail is from, when the database says (a WordPress site's blogname and admin_email). */
  mailSender?(): Promise<MailSenderIdentity | undefined>;
  /** Applies the pending migrations; the names of those applied now. */
  migrate(): Promise<string[]>;
  /** True when the database answers and every migration is applied. */
  ready(): Promise<boolean>;
  /** Background syncs of SQLite's WAL so far (sqlite/wal-flusher.ts); undefined elsewhere and in memory. */
  walSyncs(): number | undefined;
  /** The database's files that others can read (SQLite); none for a database server. */
  loosePermissions(): LoosePermission[];
  close(): Promise<void>;
  /**
   * Presentation settings the database holds (a WordPress site's options, read once), which
   * replace the environment's; undefined where Souk's own settings apply (SQLite, PostgreSQL).
   */
  sitePresentation(): Promise<SitePresentation | undefined>;
  /**
   * The Kysely instance over Souk's own schema, for tests and tools that inspect the database
   * (SQLite, PostgreSQL). The MySQL store serves a WordPress site's own tables, which have another
   * shape: reading its `db` throws, naming why (mysql/index.ts). Kept required, not optional, so
   * that the tests and tools written for the two stores of Souk's schema need no checks.
   */
  readonly db: Kysely<Database>;
}

/**
 * The parts of a Store that every database has alike, given how it checks its migrations.
 * `reads` runs the request path's prepared reads outside units of work (the favourites list): on
 * PostgreSQL as named statements, which the server plans once per connection, not per request.
 */
export function commonStoreParts(db: Kysely<Database>, migrationsApplied: () => Promise<boolean>, reads: QueryRunner = kyselyRunner(db)) {
  async function readiness() {
    try {
      await sql`select 1`.execute(db);
    } catch {
      return { database: false, migrations: false };
    }
    try {
      return { database: true, migrations: await migrationsApplied() };
    } catch {
      return { database: true, migrations: false };
    }
  }
  const catalogTransaction: CatalogUnitOfWork['catalogTransaction'] = (fn) =>
    db.transaction().execute(async (trx) => {
      const result = await fn(catalogRepository(trx));
      await settingsRepository(trx).set(CATALOG_VERSION, randomUUID());
      return result;
    });
  return {
    db,
    sitePresentation: async (): Promise<SitePresentation | undefined> => undefined,
    // GET config: Souk's own settings apply (server.ts).
    siteConfig: async () => undefined,
    settings: settingsRepository(db),
    accounts: accountRepository(db),
    revocations: revocationRepository(db),
    favouriteLists: favouriteListRepository(reads),
    reports: reportAdmin(db),
    serverKeys: serverKeyRepository(db),
    audit: auditLog(db),
    staff: staffRepository(db),
    consoleReads: consoleReads(db),
    eventTickets: eventTicketRepository(db),
    catalogTransaction,
    readiness,
    async ready() {
      const { database, migrations } = await readiness();
      return database && migrations;
    },
  };
}
