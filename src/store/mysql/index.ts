/**
 * The store on a WordPress site's own MySQL or MariaDB database (Classified Listing and its Pro
 * add-on): every port over the site's and the plugin's tables, as the plugin reads and writes
 * them, so that the site and Souk see each other's writes at once. Souk never changes those
 * tables' structure; its own few tables are `{prefix}souk_...` (migrations/).
 *
 * A unit of work is one transaction (READ COMMITTED, each connection's session level) that locks
 * its writer's row in wp_users (SELECT ... FOR UPDATE) before its first statement that writes or
 * reads chat or favourites: one user's toggles and conversation starts run one at a time across
 * every instance, as the plugin's tables have no unique key to lean on. Its reads of the catalog
 * before that (the listing, its owner) run on the same connection ahead of BEGIN, so the lock is
 * held for the writes alone (the toggle's one read, the listing's status, goes in the same round
 * trip as BEGIN and the lock: unit-of-work.ts). The site's own writes take no such lock: Souk
 * cannot serialise them (docs/running-beside-wordpress.md).
 *
 * The events a unit of work causes (the event log, the webhook and push outboxes, in Souk's own
 * tables) are written in its transaction; other instances learn of them by polling the log
 * (event-polling.ts).
 */
import { mysqlFileReferences } from './file-references.js';
import { createRequire } from 'node:module';
import { CompiledQuery, Kysely, MysqlDialect, sql } from 'kysely';
import type { Pool, PoolOptions } from 'mysql2';
import type { CatalogUnitOfWork } from '../../domain/ports.js';
import type { Database } from '../common/schema.js';
import type { DbOptions, Store } from '../common/store.js';
import { mysqlContext, type Db, type WpDatabase } from './context.js';
import { isMysqlUnavailable } from './errors.js';
import { MysqlEventSignals, mysqlLogIds } from './event-polling.js';
import { mysqlEventLog, mysqlEventRecorder, mysqlEventTickets } from './events.js';
import { mysqlPusherOutbox, sitePusherApp } from './pusher.js';
import { migrateMysql, mysqlMigrationsApplied } from './migrate.js';
import { mysqlModeration } from './moderation.js';
import { mysqlMailOutbox, mysqlMailPreferences, mysqlMailSender, mysqlPresence } from './mail.js';
import { mysqlPushDevices, mysqlPushOutbox } from './push.js';
import { batchedReads } from './read-batch.js';
import { mysqlReportAdmin } from './reports.js';
import { mysqlAuditLog, mysqlServerKeys } from './server-api.js';
import { mysqlStaff } from './staff.js';
import { mysqlConsoleReads } from './console-reads.js';
import { mysqlSiteCapabilities } from './site-staff.js';
import { mysqlFavouriteLists, mysqlRepositories } from './repositories.js';
import { mysqlAccounts, mysqlRevocations, mysqlSettings } from './settings.js';
import { mysqlSiteConfig } from './config.js';
import { unitOfWork, writesLater } from './unit-of-work.js';
import { mysqlWebhookOutbox } from './webhooks.js';

const require = createRequire(import.meta.url);

/** mysql2 is loaded on first use, like pg: an SQLite installation never needs it. */
function createPool(options: PoolOptions): Pool {
  return (require('mysql2') as typeof import('mysql2')).createPool(options);
}

/** The pool's occupancy, from mysql2's own lists (it has no public counters). */
function poolStats(pool: Pool) {
  const p = pool as unknown as {
    _allConnections?: { length: number };
    _freeConnections?: { length: number };
    _connectionQueue?: { length: number };
  };
  return { total: p._allConnections?.length ?? 0, idle: p._freeConnections?.length ?? 0, waiting: p._connectionQueue?.length ?? 0 };
}

/** url: mysql://user:password@host:port/database */
export function openMysqlStore(url: string, opts: DbOptions): Store {
  const prefix = opts.wordpressTablePrefix ?? 'wp_';
  const pool = createPool({
    uri: url,
    connectionLimit: opts.poolSize,
    connectTimeout: opts.connectTimeoutMs,
    waitForConnections: true,
    // WordPress's own: utf8mb4, times as the strings stored (the site's local time), ids as numbers.
    charset: 'utf8mb4',
    dateStrings: true,
    supportBigNumbers: true,
    enableKeepAlive: true,
    // Statements that go together travel in one round trip (context.ts, together). Safe as every
    // value is a placeholder that mysql2 escapes; no text from a request is ever part of a statement.
    multipleStatements: true,
  });
  // An idle connection whose server went away reports here; the pool drops it.
  pool.on('connection', (connection) => connection.on('error', () => {}));
  const lockWaitS = Math.max(1, Math.ceil(opts.statementTimeoutMs / 1000));
  const db: Db = new Kysely<WpDatabase>({
    dialect: new MysqlDialect({
      pool,
      // A row lock waited for longer than the statement timeout answers 503, not a hung request.
      // The isolation level is the session's, set once here rather than before every transaction.
      // mysql2 escapes values with backslashes: a session in NO_BACKSLASH_ESCAPES would read them otherwise.
      onCreateConnection: async (connection) => {
        await connection.executeQuery(sql`set session innodb_lock_wait_timeout = ${sql.lit(lockWaitS)}`.compile(db));
        await connection.executeQuery(CompiledQuery.raw('set session transaction isolation level read committed'));
        await connection.executeQuery(
          CompiledQuery.raw(
            "set session sql_mode = trim(both ',' from replace(concat(',', @@session.sql_mode, ','), ',NO_BACKSLASH_ESCAPES,', ','))",
          ),
        );
      },
    }),
  });
  const ctx = mysqlContext(db, prefix, true);
  const { t } = ctx;
  // The request path's reads outside units of work: those of one turn go in one round trip.
  const reads = batchedReads(db, ctx);
  const signals = new MysqlEventSignals(mysqlLogIds(db, ctx), opts.eventPollMs ?? 250);
  const recording = { webhookUrls: opts.webhookUrls ?? [], push: opts.push ?? false, mail: opts.mail, pusher: opts.pusher };

  async function readiness() {
    try {
      await sql`select 1`.execute(db);
    } catch {
      return { database: false, migrations: false };
    }
    try {
      return { database: true, migrations: await mysqlMigrationsApplied(db, t) };
    } catch {
      return { database: true, migrations: false };
    }
  }

  const refuseCatalog: CatalogUnitOfWork['catalogTransaction'] = async () => {
    throw new Error('on a WordPress database the site manages users and listings: import and remove them through WordPress');
  };

  return {
    dialect: 'mysql',
    repos: mysqlRepositories(reads, ctx),
    favouriteLists: mysqlFavouriteLists(reads, ctx),
    reports: mysqlReportAdmin(db, ctx),
    serverKeys: mysqlServerKeys(db, ctx),
    audit: mysqlAuditLog(db, ctx),
    staff: mysqlStaff(db, ctx),
    consoleReads: mysqlConsoleReads(db, ctx),
    settings: mysqlSettings(db, ctx),
    accounts: mysqlAccounts(db, ctx),
    revocations: mysqlRevocations(db, ctx),
    eventLog: mysqlEventLog(db, ctx),
    eventSignals: signals,
    eventTickets: mysqlEventTickets(db, ctx),
    webhooks: mysqlWebhookOutbox(db, ctx),
    pushDevices: mysqlPushDevices(db, ctx),
    pushOutbox: mysqlPushOutbox(db, ctx),
    pusherOutbox: mysqlPusherOutbox(db, ctx),
    sitePusherApp: () => sitePusherApp(db, ctx),
    siteCapabilities: mysqlSiteCapabilities(db, ctx),
    fileReferences: mysqlFileReferences(db, ctx),
    mailOutbox: mysqlMailOutbox(db, ctx),
    presence: mysqlPresence(db, ctx),
    mailPreferences: mysqlMailPreferences(db, ctx),
    mailSender: () => mysqlMailSender(db, ctx),
    async transaction(fn, writer) {
      // The users this unit of work recorded events for: told once it committed.
      const recorded = new Set<number>();
      const result = await unitOfWork(db, ctx, writer, (connection, scope) => {
        // The recorder's writes (their results never read) go with the unit's next statement or COMMIT.
        const writes = writesLater(connection, ctx, scope);
        const events = mysqlEventRecorder(writes, ctx, () => scope.enter(), { ...recording, recorded: (u) => recorded.add(u) });
        const moderation = mysqlModeration(connection, ctx, () => scope.enter());
        return fn({ ...mysqlRepositories(connection, ctx, scope), events, moderation });
      });
      signals.committed(recorded);
      return result;
    },
    catalogTransaction: refuseCatalog,
    async migrate() {
      const applied = await migrateMysql(db, t);
      // Fails here, at start, when the plugin's chat tables are missing; learns their form.
      await ctx.chat();
      return applied;
    },
    readiness,
    async ready() {
      const { database, migrations } = await readiness();
      return database && migrations;
    },
    sitePresentation: async () => (await ctx.site()).presentation,
    siteConfig: mysqlSiteConfig(db, ctx).siteConfig,
    poolStats: () => poolStats(pool),
    isUnavailable: isMysqlUnavailable,
    walSyncs: () => undefined,
    loosePermissions: () => [],
    async close() {
      signals.close();
      // mysql2's pool.end reports the loss of a connection the server dropped or never greeted
      // (one still opening): closed either way, so only another failure is worth throwing.
      await db.destroy().catch((err: unknown) => {
        if (!isMysqlUnavailable(err)) throw err;
      });
    },
    get db(): Kysely<Database> {
      throw new Error("the MySQL store serves a WordPress site's own tables: it has no Kysely handle over Souk's schema");
    },
  };
}
