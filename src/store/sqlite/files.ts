/**
 * The SQLite database's files on disk. They hold the API key and the JWT secret (D9), so only the
 * owner may read them: the folder is created 0700 and the database file 0600, and SQLite gives its
 * -wal and -shm files the database file's mode. Files that already exist are left as they are and
 * reported, so an operator who opened them on purpose (a backup group) is told, not overruled.
 */
import { closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { LoosePermission } from '../common/store.js';

/** The files beside the database that hold its data while it is open or after a crash. */
const COMPANIONS = ['-wal', '-shm', '-journal'];

/** The folder a database file was to be created in does not exist, and is not Souk's to create. */
export class MissingSqliteFolder extends Error {
  constructor(readonly folder: string) {
    super(`the folder ${folder} does not exist`);
  }
}

/**
 * Creates an empty database file (0600) where it is missing, and its folder (0700) when `createFolder`
 * says so; otherwise a missing folder is refused. The modes are at most these whatever the umask,
 * which can only clear bits. An empty file is an empty SQLite database.
 */
export function createPrivateSqliteFile(path: string, createFolder: boolean): void {
  const file = resolve(path);
  if (createFolder) mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  else if (!existsSync(dirname(file))) throw new MissingSqliteFolder(dirname(file));
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/** Group or others may read a file, or list or enter a folder. */
const OPEN_FILE = 0o044;
const OPEN_FOLDER = 0o055;

function loose(path: string, openBits: number): LoosePermission | undefined {
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    return undefined; // a companion that does not exist now
  }
  return mode & openBits ? { path, mode: `0${mode.toString(8)}` } : undefined;
}

/**
 * The database's folder and files that group or others can read (none on Windows, whose
 * permissions are not modes). Names and modes only: never what the files hold.
 */
export function looseSqlitePermissions(path: string): LoosePermission[] {
  if (process.platform === 'win32') return [];
  const file = resolve(path);
  const found = [loose(dirname(file), OPEN_FOLDER), ...['', ...COMPANIONS].map((suffix) => loose(`${file}${suffix}`, OPEN_FILE))];
  return found.filter((p): p is LoosePermission => p !== undefined);
}
