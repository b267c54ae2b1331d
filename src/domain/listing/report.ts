/** listing/report: a member reports a listing, as the plugin's ListingApi does (docs/safety.md). */
import type { UnitOfWork } from '../ports.js';

export interface ReportListingInput {
  listingId: number;
  /** The reporter's words; may be empty, as the plugin takes it. */
  message: string;
}

/** `stored`: false for a repeat of the reporter's open report about the listing, which stores and counts nothing. */
export type ReportListingResult = { ok: true; count: number; stored: boolean } | { ok: false; error: 'listing_not_found' | 'own_listing' };

/**
 * Stores the report, counts it on the listing and records `report.created`; the listing's report
 * count. One open report per reporter and listing: a repeat answers the count as it is.
 */
export async function reportListing(
  uow: UnitOfWork,
  reporterId: number,
  input: ReportListingInput,
  now: number = Date.now(),
): Promise<ReportListingResult> {
  return uow.transaction(async (repos): Promise<ReportListingResult> => {
    // Any listing the site has, whatever its status: the plugin looks only at the post's type.
    const listing = await repos.listings.findById(input.listingId);
    if (!listing) return { ok: false, error: 'listing_not_found' };
    if (listing.ownerId === reporterId) return { ok: false, error: 'own_listing' };
    if (await repos.reports.hasOpen(reporterId, { listingId: listing.id })) {
      return { ok: true, count: await repos.reports.listingReports(listing.id), stored: false };
    }
    const report = await repos.reports.add({
      reporterId,
      kind: 'listing',
      listingId: listing.id,
      conId: null,
      messageId: null,
      reportedUserId: listing.ownerId,
      reason: input.message,
      messages: [],
      createdAt: now,
    });
    const count = await repos.reports.listingReported(listing.id);
    await repos.events?.record(reporterId, { type: 'report.created', report }, now);
    return { ok: true, count, stored: true };
  }, reporterId);
}
