/** Which SQLite failures mean "unavailable for now" (answered 503) rather than a bug. */
import { sqliteResultCode } from './driver.js';

// SQLITE_BUSY, LOCKED, READONLY, IOERR, FULL, CANTOPEN: busy, out of disk or unable to write.
const UNAVAILABLE = new Set([5, 6, 8, 10, 13, 14]);

export function isSqliteUnavailable(err: unknown): boolean {
  const code = sqliteResultCode(err);
  return code !== undefined && UNAVAILABLE.has(code);
}
