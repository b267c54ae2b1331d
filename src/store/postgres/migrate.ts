/**
 * Migrations on PostgreSQL, a database other installations and other users may share: the
 * bookkeeping tables live in the connection's current schema, and instances that start together
 * take turns under an advisory lock (creating Kysely's own lock table is itself not safe to race).
 */
import { sql, type DatabaseIntrospector, type Kysely, type SchemaMetadata, type TableMetadata } from 'kysely';
import { migrateToLatest, migrationsApplied, type Migrations } from '../common/migrate.js';
import type { Database } from '../common/schema.js';

// With the schema's name, the advisory lock's key: instances of one installation (one schema) take
// turns, while installations in other schemas of the same database migrate without waiting on them.
const MIGRATION_LOCK_KEY = 74_673_831;

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

/** `target`'s members, bound to it, with `replaced` in place of its own. */
function overriding<T extends object>(target: T, replaced: Record<string | symbol, unknown>): T {
  return new Proxy(target, {
    get(t, property) {
      if (Object.hasOwn(replaced, property)) return replaced[property];
      const value: unknown = Reflect.get(t, property, t);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(t) : value;
    },
  });
}

/**
 * db as the migrator sees it: the same handle, its introspection limited to the current schema.
 * With `schemaLocked` (the caller holds the schema's own advisory lock), Kysely takes no lock of
 * its own: its lock is one for the whole database, whatever the schema, so installations in other
 * schemas would wait on each other's migrations, and past the statement timeout fail to start.
 */
function forMigrator(db: Kysely<Database>, schemaLocked = false): Kysely<Database> {
  const introspection = currentSchemaIntrospector(db);
  const replaced: Record<string, unknown> = { introspection };
  if (schemaLocked) {
    const executor = db.getExecutor();
    const noLock = async () => {};
    const adapter = overriding(executor.adapter, { acquireMigrationLock: noLock, releaseMigrationLock: noLock });
    const unlocked = overriding(executor, { adapter });
    replaced.getExecutor = () => unlocked;
  }
  return overriding(db, replaced);
}

/** By name, in the current schema: Kysely otherwise looks in any schema and would find another installation's. */
async function currentSchema(db: Kysely<Database>): Promise<string | undefined> {
  return (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema;
}

export async function migratePostgres(db: Kysely<Database>, migrations: Migrations): Promise<string[]> {
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY}, hashtext(current_schema()))`.execute(conn);
    try {
      return await migrateToLatest(forMigrator(conn, true), migrations, { schema: await currentSchema(conn) });
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY}, hashtext(current_schema()))`.execute(conn);
    }
  });
}

export async function postgresMigrationsApplied(db: Kysely<Database>, migrations: Migrations): Promise<boolean> {
  return migrationsApplied(forMigrator(db), migrations, { schema: await currentSchema(db) });
}
