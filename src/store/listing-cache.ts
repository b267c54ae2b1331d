/**
 * Recently used listings, kept with the version they were read at. A request checks the version
 * (one small indexed read) and reuses the parsed listing while it is unchanged, so an import is
 * seen at once, by every instance, without any invalidation message.
 */
import type { Listing } from '../domain/model.js';

export class ListingCache {
  private readonly entries = new Map<number, { version: number; listing: Listing }>();

  // About 10 KB a listing once parsed: 1000 keep the hot ones without weighing on memory.
  constructor(private readonly capacity = 1000) {}

  get(id: number, version: number): Listing | undefined {
    const entry = this.entries.get(id);
    if (!entry || entry.version !== version) return undefined;
    // Map order is insertion order: re-inserting marks the entry as most recently used.
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry.listing;
  }

  set(id: number, version: number, listing: Listing): void {
    this.entries.delete(id);
    this.entries.set(id, { version, listing });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as number);
  }
}
