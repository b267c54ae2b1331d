/**
 * The operator's listings and the whole-catalog import: shared by `souk import`, `souk listings
 * delete` and the server API's `listings/{id}` and `import` routes.
 */
import { deleteListings as remove, importCatalog, type Catalog } from '../catalog.js';
import type { ListingRecord } from '../model.js';
import { auditRecord, type Change, type OperatorDeps, type OperatorResult } from './context.js';

/** Creates or replaces the listing; its owner must exist. */
export async function upsertListing(deps: OperatorDeps, change: Change, listing: ListingRecord): Promise<OperatorResult<object>> {
  if (deps.siteOwnsCatalog) return { ok: false, error: 'site_catalog' };
  const audit = auditRecord(deps, change, { action: 'listing.upsert', targetKind: 'listing', targetId: listing.id });
  const result = await importCatalog(deps.uow, { users: [], listings: [listing] }, audit);
  if (!result.ok) return { ok: false, error: 'invalid', path: result.path, problem: result.problem };
  return { ok: true };
}

/** Upserts a whole document's users and listings, all or nothing. */
export async function importDocument(
  deps: OperatorDeps,
  change: Change,
  catalog: Catalog,
): Promise<OperatorResult<{ users: number; listings: number }>> {
  if (deps.siteOwnsCatalog) return { ok: false, error: 'site_catalog' };
  const details = { users: catalog.users.length, listings: catalog.listings.length };
  const audit = auditRecord(deps, change, { action: 'catalog.import', targetKind: 'catalog', targetId: null, details });
  const result = await importCatalog(deps.uow, catalog, audit);
  if (!result.ok) return { ok: false, error: 'invalid', path: result.path, problem: result.problem };
  return { ok: true, users: result.users, listings: result.listings };
}

/**
 * Removes listings: they leave every favourite list, their conversations stay. Those that were
 * not there are named (`missing`): a removal asked again finds nothing to do.
 */
export async function deleteListings(
  deps: OperatorDeps,
  change: Change,
  ids: number[],
): Promise<OperatorResult<{ deleted: number[]; missing: number[] }>> {
  if (deps.siteOwnsCatalog) return { ok: false, error: 'site_catalog' };
  const result = await remove(deps.uow, ids, (id) =>
    auditRecord(deps, change, { action: 'listing.delete', targetKind: 'listing', targetId: id }),
  );
  return { ok: true, ...result };
}
