/**
 * Stored files no message names: removed by a background sweep once older than a grace period
 * (an upload whose message is not committed yet is younger), with the leftovers of writes a crash
 * interrupted. And the deletion of a message's files, when the message goes. Only what Souk made
 * is ever deleted (keys.ts): the folder may be a WordPress site's uploads, the bucket may hold
 * backups.
 */
import type { MessageAttachment } from '../model.js';
import { digestOfKey, isLeftoverKey } from './keys.js';
import type { FileReferences } from './references.js';
import type { FileStorage } from './storage.js';

export interface SweepResult {
  /** Files seen. */
  seen: number;
  /** Files removed. */
  removed: number;
}

/** Digests asked about at once: one indexed lookup each, in one statement. */
const BATCH = 200;

/** Deletes each key whose digest no message names; how many. */
async function deleteUnreferenced(storage: FileStorage, references: FileReferences, keys: readonly string[]): Promise<number> {
  const digests = new Map(keys.map((key) => [key, digestOfKey(key)!]));
  const named = await references.referenced([...new Set(digests.values())]);
  let removed = 0;
  for (const [key, digest] of digests) {
    if (named.has(digest)) continue;
    await storage.delete(key).catch(() => undefined);
    removed++;
  }
  return removed;
}

/** Removes the stored files older than `graceMs` at `now` that no message names, and Souk's old leftovers. */
export async function sweepOrphans(storage: FileStorage, references: FileReferences, now: number, graceMs: number): Promise<SweepResult> {
  const result: SweepResult = { seen: 0, removed: 0 };
  let batch: string[] = [];
  // Each batch's references are read after it was listed: a file stored for a message since is
  // younger than the grace period, or its message is committed by then.
  for await (const file of storage.list()) {
    result.seen++;
    if (now - file.modifiedAt < graceMs) continue;
    if (isLeftoverKey(file.key)) {
      await storage.delete(file.key).catch(() => undefined);
      result.removed++;
    } else if (digestOfKey(file.key) !== undefined) {
      batch.push(file.key);
      if (batch.length >= BATCH) {
        result.removed += await deleteUnreferenced(storage, references, batch);
        batch = [];
      }
    }
  }
  if (batch.length > 0) result.removed += await deleteUnreferenced(storage, references, batch);
  return result;
}

/**
 * Deletes the files of a message that was deleted (or of every message of an erased user): only
 * those uploaded with it (the plugin's shape, an address of this storage, a key Souk made), never
 * an address the client named (D6), and not while another message names the same content. Call
 * it after the deletion committed. How many files were deleted.
 */
export async function deleteMessageFiles(
  storage: FileStorage,
  references: FileReferences,
  attachments: readonly MessageAttachment[] | null,
): Promise<number> {
  const keys = new Set<string>();
  for (const file of attachments ?? []) {
    if (!('mimeType' in file)) continue;
    for (const url of [file.url, file.thumbnail]) {
      const key = url === undefined ? undefined : storage.keyOf(url);
      if (key !== undefined && digestOfKey(key) !== undefined) keys.add(key);
    }
  }
  return keys.size === 0 ? 0 : deleteUnreferenced(storage, references, [...keys]);
}

/** Runs the sweep every `intervalMs` (unref'd: it never holds the process open); returns the stop. */
export function sweepEvery(
  storage: FileStorage,
  references: FileReferences,
  intervalMs: number,
  graceMs: number,
  onError: (err: unknown) => void,
  clock: () => number = Date.now,
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepOrphans(storage, references, clock(), graceMs)
      .catch(onError)
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
