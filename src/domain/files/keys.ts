/**
 * The storage keys Souk makes, and only those: `chat/<2 hex>/<sha-256>[-thumb].<ext>`, the first two
 * hex digits the digest's own, the extension one of the accepted types' (types.ts); and the
 * leftovers of its own writes (a `.tmp-…` beside them, an upload's temporary file in `.uploads/`).
 * The storage may be shared (a WordPress site's uploads folder, a bucket with backups in it):
 * anything else in it is someone else's, which Souk never lists, sweeps or deletes.
 */
import { FILE_EXTENSIONS } from './types.js';

/** Under it Souk stores the chat's files, in a folder or a bucket's prefix. */
export const CHAT_PREFIX = 'chat/';

/** Where an upload waits while it arrives, when that folder is inside the storage's own (server.ts). */
export const UPLOADS_FOLDER = '.uploads';

const EXTENSIONS = new Set(Object.values(FILE_EXTENSIONS));
const STORED = /^chat\/([0-9a-f]{2})\/(([0-9a-f]{2})[0-9a-f]{62})(-thumb)?\.([a-z0-9]+)$/;
/** storage/local-folder.ts's temporary name, beside the file it becomes. */
const TEMPORARY = /^chat\/[0-9a-f]{2}\/\.tmp-[0-9a-f]{16}$/;
/** Anything in Souk's own uploads folder, however deep; no hidden segment (no `..`). */
const UPLOAD_LEFTOVER = /^\.uploads(?:\/[A-Za-z0-9_-][A-Za-z0-9._-]*)+$/;

/** The content digest of a key Souk made, undefined for any other key. */
export function digestOfKey(key: string): string | undefined {
  const m = STORED.exec(key);
  return m && m[1] === m[3] && EXTENSIONS.has(m[5]!) ? m[2] : undefined;
}

/** A leftover of Souk's own interrupted writes, which only age decides. */
export const isLeftoverKey = (key: string): boolean => TEMPORARY.test(key) || UPLOAD_LEFTOVER.test(key);

/** Whether Souk may delete the key: one it made, or one of its leftovers. */
export const isSoukKey = (key: string): boolean => digestOfKey(key) !== undefined || isLeftoverKey(key);

/** The digest of a stored file an address names, by its last segments (`…/chat/ab/ab….jpg`); undefined for any other address. */
export function digestOfAddress(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  const path = url.split(/[?#]/, 1)[0]!;
  const at = path.lastIndexOf(`/${CHAT_PREFIX}`);
  return at < 0 ? undefined : digestOfKey(path.slice(at + 1));
}
