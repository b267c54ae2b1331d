/** Which MySQL/MariaDB failures mean "unavailable for now" (answered 503) rather than a bug. */
const NODE_NET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);

/**
 * Lost or refused connections, a server shutting down or out of connections, and a transaction
 * the server gave up on (lock wait timeout, deadlock): all worth a retry a moment later.
 */
const SERVER_CODES = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_SERVER_SHUTDOWN',
  'ER_NORMAL_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_LOCK_DEADLOCK',
  'ER_QUERY_INTERRUPTED',
  'ER_STATEMENT_TIMEOUT',
  'ER_CLIENT_INTERACTION_TIMEOUT',
]);

export function isMysqlUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; fatal?: unknown; message?: unknown };
  const code = String(e.code ?? '');
  if (NODE_NET.has(code) || SERVER_CODES.has(code)) return true;
  // A fatal error is one the connection did not survive: the pool replaces it.
  if (e.fatal === true) return true;
  return /Connection lost|connect ETIMEDOUT|Can't add new command when connection is in closed state|closed state/i.test(
    String(e.message ?? ''),
  );
}
