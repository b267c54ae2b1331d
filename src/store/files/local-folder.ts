/**
 * FileStorage in a folder: the default (beside the SQLite file), the folder every instance on
 * PostgreSQL mounts, or a WordPress site's uploads folder. A file is written under a temporary
 * name in the same folder and renamed into place, so a reader never sees half a file and a crash
 * leaves only a `.tmp-` leftover that the orphan sweep removes.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdir, opendir, rename, rm, stat, utimes } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CHAT_PREFIX, isSoukKey, UPLOADS_FOLDER } from '../../domain/files/keys.js';
import type { ByteRange, FileStorage, StoredFile, StoredKey } from '../../domain/files/storage.js';

/** Relative, `/`-separated, no `..`, no empty or hidden segment (temporary names start with a dot). */
const SAFE_KEY = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

export const isSafeKey = (key: string) => key.length <= 512 && SAFE_KEY.test(key) && !key.split('/').includes('..');

export interface FolderModes {
  file: number;
  folder: number;
}

/**
 * Readable by all, whatever Souk's umask (bin/souk: 077): the files are public by their address,
 * and a WordPress site's web server, another user, serves its uploads folder.
 */
export const PUBLIC_MODES: FolderModes = { file: 0o644, folder: 0o755 };
/** FILES_ACCESS=participants: only Souk serves the files, so only Souk's user reads them. */
export const PRIVATE_MODES: FolderModes = { file: 0o600, folder: 0o700 };

export class LocalFolderStorage implements FileStorage {
  private readonly base: string;

  /** `baseUrl`: the address the folder is served at (Souk's `/files`, or the site's uploads address). */
  constructor(
    readonly root: string,
    baseUrl: string,
    private readonly modes: FolderModes = PUBLIC_MODES,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  private path(key: string): string {
    if (!isSafeKey(key)) throw new Error(`not a storage key: ${JSON.stringify(key)}`);
    return join(this.root, ...key.split('/'));
  }

  /** The folder keeps no type: the key's extension gives it when served. */
  async put(key: string, body: Readable | Buffer, _contentType: string): Promise<void> {
    const path = this.path(key);
    const { file, folder } = this.modes;
    await mkdir(dirname(path), { recursive: true, mode: folder });
    for (let dir = dirname(path); dir.length > this.root.length && dir.startsWith(this.root); dir = dirname(dir)) await chmod(dir, folder);
    // Its name is keys.ts's leftover shape: the sweep removes it when a crash leaves it.
    const temporary = join(dirname(path), `.tmp-${randomBytes(8).toString('hex')}`);
    try {
      await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, createWriteStream(temporary, { mode: file }));
      await chmod(temporary, file);
      await rename(temporary, path);
    } catch (err) {
      await rm(temporary, { force: true });
      throw err;
    }
    // A name written again is in use again: the sweep's grace period starts over.
    const now = new Date();
    await utimes(path, now, now).catch(() => undefined);
  }

  async get(key: string, range?: ByteRange): Promise<StoredFile | undefined> {
    if (!isSafeKey(key)) return undefined;
    const path = this.path(key);
    let size: number;
    try {
      const info = await stat(path);
      if (!info.isFile()) return undefined;
      size = info.size;
    } catch {
      return undefined;
    }
    const body = createReadStream(path, range ? { start: range.start, end: range.end } : {});
    return { body, size };
  }

  /** Only a key Souk made, or one of its leftovers: the folder may be a site's, with the site's files in it. */
  async delete(key: string): Promise<void> {
    if (!isSoukKey(key)) throw new Error(`not a key of Souk's: ${JSON.stringify(key)}`);
    await rm(join(this.root, ...key.split('/')), { force: true });
  }

  /** What is under `chat/` and the uploads' temporary folder: the rest of the folder is not Souk's. */
  async *list(): AsyncIterable<StoredKey> {
    for (const folder of [CHAT_PREFIX.slice(0, -1), UPLOADS_FOLDER]) yield* walk(this.root, join(this.root, folder));
  }

  url(key: string): string {
    return `${this.base}/${key}`;
  }

  keyOf(url: string): string | undefined {
    if (!url.startsWith(`${this.base}/`)) return undefined;
    const key = url.slice(this.base.length + 1);
    return isSafeKey(key) ? key : undefined;
  }
}

async function* walk(root: string, folder: string): AsyncGenerator<StoredKey> {
  let dir;
  try {
    dir = await opendir(folder);
  } catch {
    return;
  }
  for await (const entry of dir) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* walk(root, path);
    else if (entry.isFile()) {
      const info = await stat(path).catch(() => undefined);
      if (info) yield { key: relative(root, path).split(sep).join('/'), size: info.size, modifiedAt: info.mtimeMs };
    }
  }
}
