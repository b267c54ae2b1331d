import type { Kysely, RawBuilder } from 'kysely';

/**
 * The server API (docs/server-api.md): its keys, named, each kept as the SHA-256 of the key only
 * (a revoked key's row is deleted), and the audit log, one row per change made by a server key,
 * the CLI's moderation commands or a staff member, pruned after AUDIT_RETENTION_DAYS.
 */
export function serverApiMigration(types: { serial: RawBuilder<unknown>; int64: 'bigint' | 'integer'; serialPrimaryKey: (c: any) => any }) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('server_keys')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('digest', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', types.int64, (c) => c.notNull())
        .addColumn('last_used_at', types.int64)
        .execute();
      await db.schema
        .createTable('audit_log')
        .addColumn('id', types.serial, types.serialPrimaryKey)
        .addColumn('at', types.int64, (c) => c.notNull())
        // server_key, cli or staff; `actor` names which (the key's name, `cli`, the staff member).
        .addColumn('actor_kind', 'text', (c) => c.notNull())
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('target_kind', 'text', (c) => c.notNull())
        .addColumn('target_id', types.int64)
        .addColumn('reason', 'text')
        .addColumn('details', 'text')
        .execute();
      await db.schema.createIndex('audit_log_by_time').on('audit_log').column('at').execute();
      await db.schema.createIndex('audit_log_by_actor').on('audit_log').columns(['actor', 'id']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      for (const table of ['audit_log', 'server_keys']) await db.schema.dropTable(table).ifExists().execute();
    },
  };
}
