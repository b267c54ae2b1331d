/**
 * Which stored files messages still name, for the orphan sweep and for deleting a message's files:
 * stored names are content-addressed, and one file may belong to several messages (the same photo
 * sent twice), so a file is deleted only when no message names its digest. The stores keep each
 * message's digests in a table of their own, written with the message and indexed by digest.
 */
import type { MessageAttachment } from '../model.js';
import { digestOfAddress } from './keys.js';

export interface FileReferences {
  /** Of `digests` (files' SHA-256, hex), those some message names. */
  referenced(digests: readonly string[]): Promise<Set<string>>;
  /** Whether any message names `digest`. */
  isReferenced(digest: string): Promise<boolean>;
}

/**
 * The digests of the stored files a message's attachments hold: those uploaded with it (the
 * plugin's shape, with `mimeType`), by their address and their thumbnail's, each once. A named
 * address (D6) is never one of Souk's files: the use cases refuse one under Souk's files address.
 */
export function storedDigestsOf(attachments: readonly MessageAttachment[] | null): string[] {
  const digests = new Set<string>();
  for (const file of attachments ?? []) {
    if (!('mimeType' in file)) continue;
    for (const url of [file.url, file.thumbnail]) {
      // Read from a column another program may write too (a WordPress site's): checked, not trusted.
      const digest = digestOfAddress(url);
      if (digest !== undefined) digests.add(digest);
    }
  }
  return [...digests];
}
