/**
 * Which stored files messages still name, for the orphan sweep and for deleting a message's files:
 * stored names are content-addressed, and one file may belong to several messages (the same photo
 * sent twice), so a file is deleted only when no message names its digest.
 */
export interface FileReferences {
  /** Whether any message's attachments contain `digest` (a file's SHA-256, hex). */
  isReferenced(digest: string): Promise<boolean>;
  /** The attachments (JSON text) of every message that has some, in no order. */
  allAttachments(): AsyncIterable<string>;
}

const DIGEST = /[0-9a-f]{64}/g;

/** The content digests a text names (an attachments column, a storage key). */
export const digestsIn = (text: string): string[] => text.match(DIGEST) ?? [];
