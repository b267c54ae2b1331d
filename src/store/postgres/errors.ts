/** Which PostgreSQL failures mean "unavailable for now" (answered 503) rather than a bug. */
const NODE_NET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);

export function isPostgresUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const code = String((err as { code?: unknown }).code ?? '');
  const message = String((err as { message?: unknown }).message ?? '');
  if (NODE_NET.has(code)) return true;
  // 08xxx connection exceptions, 57014 statement timeout, 57P0x shutdown, 53xxx resources (53100:
  // disk full), 40001/40P01 a transaction the server rolled back (serialization, deadlock): all
  // worth a retry a moment later.
  if (/^(08|53|57P)/.test(code) || code === '57014' || code === '40001' || code === '40P01') return true;
  return /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error/i.test(
    message,
  );
}
