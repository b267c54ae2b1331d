/**
 * What the outboxes (webhooks in events.ts, pushes in push.ts, mails in mail.ts, Pusher events in
 * pusher.ts) do alike on SQLite and PostgreSQL: claim the due rows for a lease, and read the
 * columns they share into a delivery. Each table has `id`, `status` and `next_attempt_at` with the
 * same meanings (MySQL says the same in mysql/outbox.ts).
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

type OutboxTable = 'webhook_outbox' | 'push_outbox' | 'mail_outbox' | 'pusher_outbox';

/** The columns every outbox row has; numbers may come as text (bigint columns). */
interface OutboxRow {
  id: number | string;
  user_id: number | string;
  created_at: number | string;
  status: string;
  attempts: number | string;
  next_attempt_at: number | string;
  last_error: string | null;
}

/** What every outbox's delivery takes from its row alike; each outbox's mapper adds its own columns. */
export function deliveryOf<S extends string>(r: OutboxRow) {
  return {
    id: Number(r.id),
    userId: Number(r.user_id),
    createdAt: Number(r.created_at),
    status: r.status as S,
    attempts: Number(r.attempts),
    nextAttemptAt: Number(r.next_attempt_at),
    lastError: r.last_error,
  };
}

/**
 * The pending rows due by `now`, at most `limit`, oldest first, each leased until `leaseUntil`
 * (its next attempt moves there) so that no other instance sends it meanwhile; a sender that dies
 * leaves it to be claimed again once the lease has passed. `skipLocked`: PostgreSQL's claim skips
 * the rows another instance is claiming (FOR UPDATE SKIP LOCKED); SQLite's one writer needs nothing
 * of the kind.
 */
export async function claimDue<R extends { id: number | string }>(
  db: Kysely<Database>,
  table: OutboxTable,
  columns: readonly string[],
  skipLocked: boolean,
  now: number,
  leaseUntil: number,
  limit: number,
): Promise<R[]> {
  // The three tables share the claim's columns; Kysely cannot see that through a table's name chosen at run time.
  const outboxes = db as unknown as Kysely<Record<OutboxTable, { id: number; status: string; next_attempt_at: number }>>;
  return outboxes.transaction().execute(async (trx) => {
    let due = trx
      .selectFrom(table)
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .orderBy('id')
      .limit(limit);
    if (skipLocked) due = due.forUpdate().skipLocked();
    const ids = (await due.execute()).map((r) => Number(r.id));
    if (ids.length === 0) return [];
    const rows = await trx
      .updateTable(table)
      .set({ next_attempt_at: leaseUntil })
      .where('id', 'in', ids)
      .returning(columns as readonly 'id'[])
      .execute();
    return (rows as unknown as R[]).sort((a, b) => Number(a.id) - Number(b.id));
  });
}
