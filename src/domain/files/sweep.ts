/**
 * Stored files no message names: removed by a background sweep once older than a grace period
 * (an upload whose message is not committed yet is younger), with the leftovers of writes a crash
 * interrupted. And the deletion of a message's files, when the message goes.
 */
import type { MessageAttachment } from '../model.js';
import { digestsIn, type FileReferences } from './references.js';
import type { FileStorage } from './storage.js';
import { forgetUploads } from './upload.js';

export interface SweepResult {
  /** Files seen. */
  seen: number;
  /** Files removed. */
  removed: number;
}

/** Removes the stored files older than `graceMs` at `now` that no message names. */
export async function sweepOrphans(storage: FileStorage, references: FileReferences, now: number, graceMs: number): Promise<SweepResult> {
  // Read first, listed after: a file stored after this read is younger than the grace period.
  const named = new Set<string>();
  for await (const attachments of references.allAttachments()) for (const digest of digestsIn(attachments)) named.add(digest);
  const result: SweepResult = { seen: 0, removed: 0 };
  for await (const file of storage.list()) {
    result.seen++;
    if (now - file.modifiedAt < graceMs) continue;
    const digests = digestsIn(file.key);
    if (digests.length > 0 && digests.some((digest) => named.has(digest))) continue;
    await storage.delete(file.key).catch(() => undefined);
    result.removed++;
  }
  return result;
}

/**
 * Deletes the files of a message that was deleted (or of every message of an erased user): those
 * stored here (by their address) that no other message names. Call it after the deletion committed.
 */
export async function deleteMessageFiles(
  storage: FileStorage,
  references: FileReferences,
  attachments: readonly MessageAttachment[] | null,
): Promise<number> {
  const keys: string[] = [];
  for (const file of attachments ?? []) {
    for (const url of [file.url, 'thumbnail' in file ? file.thumbnail : undefined]) {
      const key = url === undefined ? undefined : storage.keyOf(url);
      if (key !== undefined) keys.push(key);
    }
  }
  await forgetUploads(storage, keys, (digest) => references.isReferenced(digest));
  return keys.length;
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
