/**
 * The FileStorage the settings name: the folder FILES_DIR, served at FILES_URL; or, with
 * FILES_S3_URL, a bucket (files-s3.ts), served at FILES_S3_PUBLIC_URL or by Souk at FILES_URL. A
 * bucket is checked at once, so that a wrong setting stops the start, not the first upload.
 */
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import type { FileStorage, S3Bucket } from '../../domain/files/storage.js';
import { LocalFolderStorage, PRIVATE_MODES, PUBLIC_MODES } from './local-folder.js';
import { S3Storage } from './s3.js';

export interface FileStorageSettings {
  dir: string;
  url: string;
  s3?: S3Bucket;
  s3PublicUrl?: string;
  /** FILES_ACCESS: with `participants` only Souk reads the folder (files 0600, folders 0700). */
  access?: 'public' | 'participants';
}

export async function openFileStorage(settings: FileStorageSettings): Promise<FileStorage> {
  if (settings.s3) {
    const bucket = new S3Storage(settings.s3, settings.s3PublicUrl ?? settings.url);
    try {
      await bucket.check();
    } catch (err) {
      bucket.close();
      throw err;
    }
    return bucket;
  }
  const modes = settings.access === 'participants' ? PRIVATE_MODES : PUBLIC_MODES;
  if (!existsSync(settings.dir)) {
    mkdirSync(settings.dir, { recursive: true });
    // Public: served to anyone with an address (and, on a WordPress site, by its web server), not the umask's 700.
    chmodSync(settings.dir, modes.folder);
  }
  return new LocalFolderStorage(settings.dir, settings.url, modes);
}

/** The folder FILES_DIR as a storage, whatever FILES_S3_URL says: where the uploads' temporary files wait. */
export const localFolder = (settings: Pick<FileStorageSettings, 'dir' | 'url'>): FileStorage =>
  new LocalFolderStorage(settings.dir, settings.url);

/** Lets go of what the storage holds open (a bucket's connections). */
export function closeFileStorage(storage: FileStorage): void {
  if (storage instanceof S3Storage) storage.close();
}
