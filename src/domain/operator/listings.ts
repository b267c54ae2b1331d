/**
 * The operator's listings and the whole-catalog import: shared by `souk import`, `souk listings
 * delete` and the server API's `listings/{id}` and `import` routes.
 */
import { deleteListings as remove, importCatalog, type Catalog } from '../catalog.js';
import type { ListingRecord } from '../model.js';
import { audited, type Change, type OperatorDeps, type OperatorResult } from './context.js';

/** Creates or replaces the listing; its owner must exist. */
export async function upsertListing(deps: OperatorDeps, change: Change, listing: ListingRecord): Promise<OperatorResult<object>> {
  if (deps.siteOwnsCatalog) return { ok: false, error: 'site_catalog' };
  const result = await importCatalog(deps.uow, { users: [], listings: [listing] });
  if (!result.ok) return { ok: false, error: 'invalid', path: result.path, problem: result.problem };
  await audited(deps, change, { action: 'listing.upsert', targetKind: 'listing', targetId: listing.id });
  return { ok: true };
}

/** Upserts a whole document's users and listings, all or nothing. */
export async function importDocument(
  deps: OperatorDeps,
  change: Change,
  catalog: Catalog,
): Promise<OperatorResult<{ users: number; listings: number }>> {
  if (deps.siteOwnsCatalog) return { ok: false, error: 'site_catalog' };
  const result = await importCatalog(deps.uow, catalog);
  if (!result.ok) return { ok: false, error: 'invalid', path: result.path, problem: result.problem };
  const counts = { users: result.users, listings: result.listings };
  await audited(deps, change, { action: 'catalog.import', targetKind: 'catalog', targetId: null, details: counts });
  return { ok: true, ...counts };
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
  const result = await remove(deps.uow, ids);
  for (const id of result.deleted) await audited(deps, change, { action: 'listing.delete', targetKind: 'listing', targetId: id });
  return { ok: true, ...result };
}
