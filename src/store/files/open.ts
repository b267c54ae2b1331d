/** The FileStorage the settings name: the folder FILES_DIR, served at FILES_URL. */
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import type { FileStorage } from '../../domain/files/storage.js';
import { LocalFolderStorage } from './local-folder.js';

export interface FileStorageSettings {
  dir: string;
  url: string;
}

export function openFileStorage(settings: FileStorageSettings): FileStorage {
  if (!existsSync(settings.dir)) {
    mkdirSync(settings.dir, { recursive: true });
    // Served to anyone with an address (and, on a WordPress site, by its web server): not the umask's 700.
    chmodSync(settings.dir, 0o755);
  }
  return new LocalFolderStorage(settings.dir, settings.url);
}
