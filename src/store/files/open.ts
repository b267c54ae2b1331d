/** The FileStorage the settings name: the folder FILES_DIR, served at FILES_URL. */
import { mkdirSync } from 'node:fs';
import type { FileStorage } from '../../domain/files/storage.js';
import { LocalFolderStorage } from './local-folder.js';

export interface FileStorageSettings {
  dir: string;
  url: string;
}

export function openFileStorage(settings: FileStorageSettings): FileStorage {
  mkdirSync(settings.dir, { recursive: true, mode: 0o755 });
  return new LocalFolderStorage(settings.dir, settings.url);
}
