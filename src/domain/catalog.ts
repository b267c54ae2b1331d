/** The catalog import (users and listings upserted by id) and listing removal. */
import type { AuditRecord } from './audit.js';
import type { ListingRecord, UserRecord } from './model.js';
import type { CatalogUnitOfWork } from './ports.js';

export interface Catalog {
  users: UserRecord[];
  listings: ListingRecord[];
}

export type ImportResult = { ok: true; users: number; listings: number } | { ok: false; path: string; problem: string };

function firstDuplicate(items: { id: number }[], kind: string): { path: string; problem: string } | null {
  const seen = new Map<number, number>();
  for (const [i, item] of items.entries()) {
    const before = seen.get(item.id);
    if (before !== undefined) return { path: `${kind}[${i}].id`, problem: `duplicate id ${item.id} (also ${kind}[${before}])` };
    seen.set(item.id, i);
  }
  return null;
}

/** All or nothing: a document with any invalid entry imports nothing; `audit` is written with it, in its transaction. */
export async function importCatalog(uow: CatalogUnitOfWork, catalog: Catalog, audit?: AuditRecord): Promise<ImportResult> {
  const duplicate = firstDuplicate(catalog.users, 'users') ?? firstDuplicate(catalog.listings, 'listings');
  if (duplicate) return { ok: false, ...duplicate };

  return uow.catalogTransaction(async (repo) => {
    const inDocument = new Set(catalog.users.map((u) => u.id));
    const owners = [...new Set(catalog.listings.map((l) => l.ownerId))].filter((id) => !inDocument.has(id));
    const existing = await repo.existingUserIds(owners);
    const orphan = catalog.listings.findIndex((l) => !inDocument.has(l.ownerId) && !existing.has(l.ownerId));
    if (orphan >= 0) {
      return {
        ok: false,
        path: `listings[${orphan}].owner_id`,
        problem: `user ${catalog.listings[orphan]!.ownerId} does not exist`,
      } as const;
    }
    for (const user of catalog.users) await repo.upsertUser(user);
    for (const listing of catalog.listings) await repo.upsertListing(listing);
    if (audit) await repo.recordAudit(audit);
    return { ok: true, users: catalog.users.length, listings: catalog.listings.length } as const;
  });
}

/** `audit`: each removed listing's row, written in the removal's transaction. */
export async function deleteListings(
  uow: CatalogUnitOfWork,
  ids: number[],
  audit?: (listingId: number) => AuditRecord,
): Promise<{ deleted: number[]; missing: number[] }> {
  const deleted = await uow.catalogTransaction(async (repo) => {
    const removed = await repo.deleteListings(ids);
    if (audit) for (const id of removed) await repo.recordAudit(audit(id));
    return removed;
  });
  const gone = new Set(deleted);
  return { deleted, missing: ids.filter((id) => !gone.has(id)) };
}
