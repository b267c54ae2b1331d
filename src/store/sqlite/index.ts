/**
 * The store on SQLite: one connection in this process. Writes from the requests of one turn of
 * the event loop share a commit (write-batch.ts), a libuv thread syncs the WAL after each commit
 * (wal-flusher.ts), and a thread of its own copies it back into the file (checkpointer.ts); reads
 * run on the same connection, straight while no transaction is open.
 */
import { fileReferences } from '../common/file-references.js';
import type { UnitOfWork } from '../../domain/ports.js';
import { eventLog, LocalEventSignals, webhookOutbox } from '../common/events.js';
import { ListingCache } from '../common/listing-cache.js';
import { migrateToLatest, migrationsApplied } from '../common/migrate.js';
import { mailOutbox, mailPreferenceRepository, presenceRepository } from '../common/mail.js';
import { pushDeviceRepository, pushOutbox } from '../common/push.js';
import { pusherOutbox } from '../common/pusher.js';
import { kyselyRunner } from '../common/prepared.js';
import { commonStoreParts, type DbOptions, type Store } from '../common/store.js';
import { connectSqlite, sqlitePath } from './connection.js';
import { isSqliteUnavailable } from './errors.js';
import { looseSqlitePermissions } from './files.js';
import { SQLITE_MIGRATIONS } from './migrations/index.js';
import { sqliteRepositories } from './repositories.js';
import { WalFlusher } from './wal-flusher.js';
import { WalCheckpointer } from './checkpointer.js';
import { sqliteReadRunner, sqliteRunner } from './runner.js';
import { SqliteWriteBatch } from './write-batch.js';

/** url: sqlite:PATH, sqlite://PATH or sqlite::memory: */
export function openSqliteStore(url: string, opts: DbOptions): Store {
  const path = sqlitePath(url);
  const { db, connection, walPath } = connectSqlite(path, opts);
  const listingCache = new ListingCache();
  const walFlusher = walPath ? new WalFlusher(walPath) : undefined;
  const checkpointer = walPath ? new WalCheckpointer(path, walPath) : undefined;
  const signals = new LocalEventSignals();
  const batch = new SqliteWriteBatch(
    db,
    connection,
    sqliteRepositories(sqliteRunner(db, connection), listingCache, opts.webhookUrls, signals.recorded, opts.push, opts.mail, opts.pusher),
    undefined,
    () => {
      walFlusher?.afterCommit();
      checkpointer?.afterCommit();
      signals.committed();
    },
  );
  const transaction: UnitOfWork['transaction'] = batch.transaction;
  return {
    ...commonStoreParts(db, () => migrationsApplied(db, SQLITE_MIGRATIONS)),
    dialect: 'sqlite',
    repos: sqliteRepositories(sqliteReadRunner(db, connection), listingCache),
    eventLog: eventLog(kyselyRunner(db)),
    eventSignals: signals,
    webhooks: webhookOutbox(db, false),
    pushDevices: pushDeviceRepository(db),
    pushOutbox: pushOutbox(db, false),
    pusherOutbox: pusherOutbox(db, false, sqliteReadRunner(db, connection)),
    fileReferences: fileReferences(db),
    mailOutbox: mailOutbox(db, false),
    presence: presenceRepository(db),
    mailPreferences: mailPreferenceRepository(db),
    transaction,
    migrate: () => migrateToLatest(db, SQLITE_MIGRATIONS),
    poolStats: () => undefined,
    isUnavailable: isSqliteUnavailable,
    walSyncs: () => walFlusher?.snapshot().flushes,
    loosePermissions: () => (path === ':memory:' ? [] : looseSqlitePermissions(path)),
    async close() {
      walFlusher?.close();
      // The thread's connection first: the serving one, closed last, copies what is left and removes the WAL.
      await checkpointer?.close();
      await db.destroy();
    },
  };
}
