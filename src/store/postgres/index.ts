/**
 * The store on PostgreSQL: a pool shared by many stateless instances. The request path's
 * statements go through pg as named statements (runner.ts); a transaction sends BEGIN, its
 * writer's row lock and its first read in one round trip (transaction.ts), and the reads of one
 * turn outside transactions go together (read-batch.ts).
 */
import { fileReferences } from '../common/file-references.js';
import { Kysely, PostgresDialect } from 'kysely';
import { eventLog, leavesRows, webhookOutbox } from '../common/events.js';
import { ListingCache } from '../common/listing-cache.js';
import { mailOutbox, mailPreferenceRepository, presenceRepository } from '../common/mail.js';
import { pushDeviceRepository, pushOutbox } from '../common/push.js';
import { pusherOutbox } from '../common/pusher.js';
import type { Database } from '../common/schema.js';
import { commonStoreParts, type DbOptions, type Store } from '../common/store.js';
import { isPostgresUnavailable } from './errors.js';
import { EVENTS_CHANNEL, PostgresEventSignals } from './event-signals.js';
import { migratePostgres, postgresMigrationsApplied } from './migrate.js';
import { POSTGRES_MIGRATIONS } from './migrations/index.js';
import { postgresPool } from './pool.js';
import { batchedReads } from './read-batch.js';
import { postgresRepositories } from './repositories.js';
import { postgresRunner } from './runner.js';
import { postgresTransaction } from './transaction.js';

/** url: postgres://... or postgresql://... */
export function openPostgresStore(url: string, opts: DbOptions): Store {
  const pool = postgresPool(url, opts);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const listingCache = new ListingCache();
  const named = opts.preparedStatements ?? true;
  const join = named && (opts.joinStatements ?? true);
  // The request path's reads outside units of work: those of one turn go in one round trip.
  const reads = join ? batchedReads(db, pool, postgresRunner(db, pool, named)) : postgresRunner(db, pool, named);
  const signals = new PostgresEventSignals(url, async (payload) => {
    await pool.query('select pg_notify($1, $2)', [EVENTS_CHANNEL, payload]);
  });
  const transaction = postgresTransaction(
    db,
    pool,
    { named, join },
    (run, writer, recorded) =>
      postgresRepositories(run, listingCache, opts.webhookUrls, opts.push, opts.mail, writer, recorded, opts.pusher),
    (users) => signals.committed(users),
  );
  return {
    ...commonStoreParts(db, () => postgresMigrationsApplied(db, POSTGRES_MIGRATIONS), reads),
    dialect: 'postgres',
    repos: postgresRepositories(reads, listingCache),
    eventLog: eventLog(postgresRunner(db, pool, named)),
    eventSignals: signals,
    liveChannel: signals.live,
    transaction: (fn, writer) => transaction(fn, writer),
    alone: (types, fn, writer) => transaction(fn, writer, !types.some((type) => leavesRows(type, opts.webhookUrls ?? []))),
    webhooks: webhookOutbox(db, true),
    pushDevices: pushDeviceRepository(db),
    pushOutbox: pushOutbox(db, true),
    pusherOutbox: pusherOutbox(db, true, postgresRunner(db, pool, named)),
    fileReferences: fileReferences(db),
    mailOutbox: mailOutbox(db, true),
    presence: presenceRepository(db),
    mailPreferences: mailPreferenceRepository(db),
    migrate: () => migratePostgres(db, POSTGRES_MIGRATIONS),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    isUnavailable: isPostgresUnavailable,
    walSyncs: () => undefined,
    loosePermissions: () => [],
    async close() {
      await signals.close();
      await db.destroy();
    },
  };
}
