/**
 * Recently used listings, kept with the version they were read at. A request checks the version
 * (one small indexed read) and reuses the parsed listing while it is unchanged, so an import is
 * seen at once, by every instance, without any invalidation message.
 *
 * A listing is kept only when it is asked for a second time: most listings are read once in a
 * while, and caching each of those would evict the hot ones and push every parsed listing into
 * the old generation of the heap, where it is garbage soon after (the bench's peak memory).
 */
import type { Listing } from '../../domain/model.js';

export class ListingCache {
  private readonly entries = new Map<number, { version: number; listing: Listing }>();
  /** Listings asked for once since this set was last emptied: asked again, they are kept. */
  private readonly seenOnce = new Set<number>();

  // About 10 KB a listing once parsed: 1000 keep the hot ones without weighing on memory.
  constructor(private readonly capacity = 1000) {}

  has(id: number): boolean {
    return this.entries.has(id);
  }

  get(id: number, version: number): Listing | undefined {
    const entry = this.entries.get(id);
    if (!entry || entry.version !== version) return undefined;
    // Map order is insertion order: re-inserting marks the entry as most recently used.
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry.listing;
  }

  /** A listing just read from the database: kept if it was read before (or is kept already). */
  offer(id: number, version: number, listing: Listing): void {
    if (!this.entries.has(id) && !this.seenOnce.delete(id)) {
      this.seenOnce.add(id);
      if (this.seenOnce.size > 4 * this.capacity) this.seenOnce.clear();
      return;
    }
    this.entries.delete(id);
    this.entries.set(id, { version, listing });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as number);
  }
}
