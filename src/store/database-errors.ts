/**
 * What Souk says when the database DATABASE_URL names cannot be opened or migrated: which database
 * (its URL as given, password masked), the driver's own words, and what to check. Every way in
 * (souk serve, npm start, each CLI command) opens the store through openMigratedStore, so this
 * is the one place the wording lives.
 */
import { sqliteResultCode } from './sqlite/driver.js';
import { MissingSqliteFolder } from './sqlite/files.js';

export class DatabaseUnusable extends Error {
  override name = 'DatabaseUnusable';
}

interface Fault {
  code?: unknown;
  message?: unknown;
  errors?: unknown;
}

/** The driver's words; a refused connection to every address of a name has an empty message of its own. */
function reason(err: unknown): string {
  const fault = (err ?? {}) as Fault;
  // Without a closing full stop: the hint follows after a semicolon.
  if (typeof fault.message === 'string' && fault.message !== '') return fault.message.replace(/\.$/, '');
  const first = Array.isArray(fault.errors) ? (fault.errors[0] as Fault | undefined) : undefined;
  if (typeof first?.message === 'string' && first.message !== '') return first.message;
  return typeof fault.code === 'string' ? fault.code : String(err);
}

function server(url: string): { kind: string; at: string } {
  const kind = url.startsWith('mysql:') ? 'MySQL or MariaDB' : 'PostgreSQL';
  try {
    const u = new URL(url);
    return { kind, at: `${u.hostname || 'localhost'}:${u.port || (url.startsWith('mysql:') ? 3306 : 5432)}` };
  } catch {
    return { kind, at: "DATABASE_URL's host and port" };
  }
}

const codeOf = (err: unknown): string => String((err as Fault | undefined)?.code ?? '');

const SQLITE_NOTADB = 26;
const SQLITE_CORRUPT = 11;
const SQLITE_CANTOPEN = 14;
const SQLITE_READONLY = 8;

function sqliteHint(err: unknown): string {
  if (err instanceof MissingSqliteFolder) {
    return `Souk creates only its default folder (./data); create this one (mkdir -p ${err.folder}) or correct the path in DATABASE_URL`;
  }
  const code = sqliteResultCode(err) ?? (/not a database/i.test(reason(err)) ? SQLITE_NOTADB : undefined);
  if (code === SQLITE_NOTADB) return 'check that DATABASE_URL names a Souk SQLite database (a file Souk created), not some other file';
  if (code === SQLITE_CORRUPT) return 'the file is damaged: restore it from a backup';
  if (code === SQLITE_CANTOPEN || code === SQLITE_READONLY || ['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EISDIR'].includes(codeOf(err))) {
    return 'check that the path names a file, and that this user may read and write it and its folder';
  }
  return 'check that DATABASE_URL names a Souk SQLite database and that the disk is not full';
}

const CONNECTION_CLOSED = /Connection terminated|Connection lost|server closed the connection|ECONNRESET|EPIPE|socket hang up/i;

function serverHint(url: string, err: unknown): string {
  const { kind, at } = server(url);
  const code = codeOf(err);
  const text = reason(err);
  if (code === 'ECONNREFUSED') return `is ${kind} running and listening at ${at}? Check DATABASE_URL's host and port`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host of ${at} is not known: check DATABASE_URL's host`;
  if (code === 'ETIMEDOUT' || /timeout|timed out/i.test(text)) {
    return `no answer from ${at} in time: check the host and port, and any firewall between (DB_CONNECT_TIMEOUT_MS)`;
  }
  // PostgreSQL's SQLSTATEs and MySQL's codes for a refused sign-in, and for a database that does not exist.
  if (code === '28P01' || code === '28000' || /ACCESS_DENIED/.test(code))
    return "check the user and password in DATABASE_URL, and the user's rights on the database";
  if (code === '3D000' || code === 'ER_BAD_DB_ERROR')
    return `the database does not exist on ${at}: create it, or correct its name in DATABASE_URL`;
  if (CONNECTION_CLOSED.test(text) || CONNECTION_CLOSED.test(code)) {
    return `the server at ${at} closed the connection: check that it is a ${kind} server, that it accepts this client (its log says why) and whether it asks for TLS`;
  }
  return `check that ${kind} at ${at} is reachable and that DATABASE_URL names Souk's database with a user that may create tables`;
}

/** The error to report when the database at `url` (shown as `shown`, its password masked) failed with `err`. */
export function databaseUnusable(url: string, shown: string, err: unknown): DatabaseUnusable {
  if (err instanceof DatabaseUnusable) return err;
  const hint = url.startsWith('sqlite:') ? sqliteHint(err) : serverHint(url, err);
  return new DatabaseUnusable(`cannot use the database ${shown} (DATABASE_URL): ${reason(err)}; ${hint}`, { cause: err });
}
