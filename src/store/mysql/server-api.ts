/** The server API's keys and the audit log on a WordPress database: Souk's own `{prefix}souk_server_keys` and `{prefix}souk_audit_log`. */
import { sql } from 'kysely';
import type { AuditLog, AuditRecord } from '../../domain/audit.js';
import type { ServerKeyRepository } from '../../domain/server-keys.js';
import { auditValues, toAuditEntry, type AuditRow } from '../common/server-api.js';
import { rows, T, type Db, type MysqlContext } from './context.js';

export function mysqlServerKeys(db: Db, ctx: MysqlContext): ServerKeyRepository {
  const table = T(ctx.t.soukServerKeys);
  return {
    async add(name, digest, at) {
      const result = await sql`insert ignore into ${table} (name, digest, created_at) values (${name}, ${digest}, ${at})`.execute(db);
      return Number(result.numAffectedRows ?? 0) > 0;
    },
    async list() {
      const found = await rows(
        db,
        sql<{ name: string; created_at: string | number; last_used_at: string | number | null }>`
          select name, created_at, last_used_at from ${table} order by name`,
      );
      return found.map((r) => ({
        name: r.name,
        createdAt: Number(r.created_at),
        lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
      }));
    },
    active: () => rows(db, sql<{ name: string; digest: string }>`select name, digest from ${table}`),
    async remove(name) {
      const result = await sql`delete from ${table} where name = ${name}`.execute(db);
      return Number(result.numAffectedRows ?? 0) > 0;
    },
    async used(name, at) {
      await sql`update ${table} set last_used_at = ${at} where name = ${name}`.execute(db);
    },
  };
}

/** Writes the audit row on `db`: a connection, or the change's own transaction. */
export async function insertAudit(db: Db, ctx: MysqlContext, entry: AuditRecord): Promise<void> {
  await auditInsert(ctx, entry).execute(db);
}

/** The audit row's INSERT. */
export function auditInsert(ctx: MysqlContext, entry: AuditRecord) {
  const v = auditValues(entry);
  return sql`insert into ${T(ctx.t.soukAuditLog)} (at, actor_kind, actor, action, target_kind, target_id, reason, details)
    values (${v.at}, ${v.actor_kind}, ${v.actor}, ${v.action}, ${v.target_kind}, ${v.target_id}, ${v.reason}, ${v.details})`;
}

/**
 * Runs a change that says how many rows it changed; given `audit`, in one transaction with the
 * audit row, written when anything changed: the two commit together or not at all.
 */
export async function withAudit(db: Db, ctx: MysqlContext, audit: AuditRecord | undefined, change: (db: Db) => Promise<number>) {
  if (!audit) return change(db);
  return db.transaction().execute(async (trx) => {
    const n = await change(trx);
    if (n > 0) await insertAudit(trx, ctx, audit);
    return n;
  });
}

export function mysqlAuditLog(db: Db, ctx: MysqlContext): AuditLog {
  const table = T(ctx.t.soukAuditLog);
  return {
    record: (entry) => insertAudit(db, ctx, entry),
    async list({ since, actor, action, beforeId, limit }) {
      const conditions = [
        ...(since === undefined ? [] : [sql`at >= ${since}`]),
        ...(actor === undefined ? [] : [sql`actor = ${actor}`]),
        ...(action === undefined ? [] : [sql`action = ${action}`]),
        ...(beforeId === undefined ? [] : [sql`id < ${beforeId}`]),
      ];
      const where = conditions.length ? sql`where ${sql.join(conditions, sql` and `)}` : sql``;
      const found = await rows(db, sql<AuditRow>`select * from ${table} ${where} order by id desc limit ${limit}`);
      return found.map(toAuditEntry);
    },
    async prune(before) {
      const result = await sql`delete from ${table} where at < ${before}`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
