/**
 * The server API's keys and the audit log on Souk's own schema (migration 026), and the row form
 * every database shares.
 */
import type { Kysely } from 'kysely';
import type { AuditEntry, AuditLog, AuditRecord } from '../../domain/audit.js';
import type { ServerKeyRepository } from '../../domain/server-keys.js';
import type { Database } from './schema.js';

/** An audit row as any database gives it back; numbers may come as text (bigint columns). */
export interface AuditRow {
  id: number | string;
  at: number | string;
  actor_kind: string;
  actor: string;
  action: string;
  target_kind: string;
  target_id: number | string | null;
  reason: string | null;
  details: string | null;
}

export function toAuditEntry(row: AuditRow): AuditEntry {
  return {
    id: Number(row.id),
    at: Number(row.at),
    actor: { kind: row.actor_kind as AuditEntry['actor']['kind'], name: row.actor },
    action: row.action as AuditEntry['action'],
    targetKind: row.target_kind as AuditEntry['targetKind'],
    targetId: row.target_id === null ? null : Number(row.target_id),
    reason: row.reason,
    details: row.details === null ? null : (JSON.parse(row.details) as AuditEntry['details']),
  };
}

export const auditValues = (r: AuditRecord) => ({
  at: r.at,
  actor_kind: r.actor.kind,
  actor: r.actor.name,
  action: r.action,
  target_kind: r.targetKind,
  target_id: r.targetId,
  reason: r.reason,
  details: r.details === null ? null : JSON.stringify(r.details),
});

/** Writes the audit row on `db`: a connection, or the change's own transaction. */
export async function insertAudit(db: Kysely<Database>, entry: AuditRecord): Promise<void> {
  await db.insertInto('audit_log').values(auditValues(entry)).execute();
}

/**
 * Runs a change that says how many rows it changed; given `audit`, in one transaction with the
 * audit row, written when anything changed: the two commit together or not at all.
 */
export async function withAudit(db: Kysely<Database>, audit: AuditRecord | undefined, change: (db: Kysely<Database>) => Promise<number>) {
  if (!audit) return change(db);
  return db.transaction().execute(async (trx) => {
    const n = await change(trx);
    if (n > 0) await insertAudit(trx, audit);
    return n;
  });
}

export function serverKeyRepository(db: Kysely<Database>): ServerKeyRepository {
  return {
    async add(name, digest, at) {
      const result = await db
        .insertInto('server_keys')
        .values({ name, digest, created_at: at, last_used_at: null })
        .onConflict((oc) => oc.column('name').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    async list() {
      const rows = await db.selectFrom('server_keys').select(['name', 'created_at', 'last_used_at']).orderBy('name').execute();
      return rows.map((r) => ({
        name: r.name,
        createdAt: Number(r.created_at),
        lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
      }));
    },
    active: () => db.selectFrom('server_keys').select(['name', 'digest']).execute(),
    async remove(name) {
      const result = await db.deleteFrom('server_keys').where('name', '=', name).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async used(name, at) {
      await db.updateTable('server_keys').set({ last_used_at: at }).where('name', '=', name).execute();
    },
  };
}

export function auditLog(db: Kysely<Database>): AuditLog {
  return {
    record: (entry) => insertAudit(db, entry),
    async list({ since, actor, action, beforeId, limit }) {
      let query = db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(limit);
      if (since !== undefined) query = query.where('at', '>=', since);
      if (actor !== undefined) query = query.where('actor', '=', actor);
      if (action !== undefined) query = query.where('action', '=', action);
      if (beforeId !== undefined) query = query.where('id', '<', beforeId);
      return (await query.execute()).map(toAuditEntry);
    },
    async prune(before) {
      const result = await db.deleteFrom('audit_log').where('at', '<', before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
