import {
  Migrator,
  sql,
  type DatabaseIntrospector,
  type Kysely,
  type Migration,
  type MigrationProvider,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';
import type { Database, Dialect } from './schema.js';
import { initialMigration } from './migrations/001-initial.js';
import { dropMessagesConMigration } from './migrations/002-drop-messages-con.js';
import { listingJsonAsWireMigration } from './migrations/003-listing-json-as-wire.js';
import { listingStateIndexMigration } from './migrations/004-listing-state-index.js';
import { favouriteListingTriggerMigration } from './migrations/005-favourite-listing-trigger.js';
import { messagesBySenderMigration } from './migrations/006-messages-by-sender.js';
import { dropConversationsRecipientMigration } from './migrations/007-drop-conversations-recipient.js';

/** Migrations ship inside the code, so a built package needs no files on disk to find them. */
class BundledMigrations implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return {
      '001-initial': initialMigration(this.dialect),
      '002-drop-messages-con': dropMessagesConMigration,
      '003-listing-json-as-wire': listingJsonAsWireMigration,
      '004-listing-state-index': listingStateIndexMigration(this.dialect),
      '005-favourite-listing-trigger': favouriteListingTriggerMigration(this.dialect),
      '006-messages-by-sender': messagesBySenderMigration(this.dialect),
      '007-drop-conversations-recipient': dropConversationsRecipientMigration,
    };
  }
}

/**
 * The tables of the connection's current schema only. Kysely's PostgreSQL introspector lists every
 * table of every schema, through functions that fail (3F000, 42P01) when another user of the
 * database drops a schema or table during the listing; its migrator needs only to know whether its
 * own two tables exist, and those live in the current schema.
 */
function currentSchemaIntrospector(db: Kysely<Database>): DatabaseIntrospector {
  const getTables = async (): Promise<TableMetadata[]> => {
    const { rows } = await sql<{ name: string; schema: string; isView: boolean }>`
      select c.relname as name, n.nspname as schema, c.relkind = 'v' as "isView"
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v')`.execute(db);
    return rows.map((row) => ({ ...row, columns: [] }));
  };
  return {
    getSchemas: async () => (await sql<SchemaMetadata>`select current_schema() as name`.execute(db)).rows,
    getTables,
    getMetadata: async () => ({ tables: await getTables() }),
  };
}

/** db as the migrator sees it: on PostgreSQL, its introspection limited to the current schema. */
function forMigrator(db: Kysely<Database>, dialect: Dialect): Kysely<Database> {
  if (dialect !== 'postgres') return db;
  const introspection = currentSchemaIntrospector(db);
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * On PostgreSQL the bookkeeping tables are placed in the connection's current schema by name:
 * Kysely otherwise looks for them in any schema and would find another installation's.
 */
async function migrator(db: Kysely<Database>, dialect: Dialect): Promise<Migrator> {
  const schema =
    dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  return new Migrator({
    db: forMigrator(db, dialect),
    provider: new BundledMigrations(dialect),
    migrationTableName: 'souk_migrations',
    migrationLockTableName: 'souk_migrations_lock',
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
}

// Any constant: instances of one installation agree on it, so only one migrates at a time.
const MIGRATION_LOCK_KEY = 74_673_831;

/**
 * Applies every pending migration. On PostgreSQL an advisory lock makes instances that start
 * together take turns (creating Kysely's own lock table is itself not safe to race).
 */
export async function migrateToLatest(db: Kysely<Database>, dialect: Dialect): Promise<string[]> {
  const run = async (conn: Kysely<Database>) => {
    const { error, results } = await (await migrator(conn, dialect)).migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  };
  if (dialect !== 'postgres') return run(db);
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(conn);
    try {
      return await run(conn);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(conn);
    }
  });
}

/** True when every bundled migration has been applied. */
export async function migrationsApplied(db: Kysely<Database>, dialect: Dialect): Promise<boolean> {
  const migrations = await (await migrator(db, dialect)).getMigrations();
  return migrations.every((m) => m.executedAt !== undefined);
}
