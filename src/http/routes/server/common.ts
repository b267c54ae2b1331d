/**
 * What the server API's routes share (docs/server-api.md): the id in the path, the reason of a
 * change, who asks (the server key's name), the opaque cursor of a list, and the refusals of the
 * operator's use cases in shape B.
 */
import type { FastifyRequest } from 'fastify';
import { REASON_MAX_LENGTH } from '../../../domain/audit.js';
import { plainTextProblem } from '../../../domain/chat/common.js';
import type { Change, OperatorDeps, OperatorError } from '../../../domain/operator/context.js';
import type { ServerKeys } from '../../../auth/server-keys.js';
import { badRequest, conflict, notFound, notPlainTextMessage, SITE_CATALOG_MESSAGE, type ApiError } from '../../errors.js';

/** What the server API's routes are given (http/deps.ts, RouteDeps.server). */
export interface ServerApiDeps {
  keys: ServerKeys;
  operator: OperatorDeps;
  /** Largest document POST import takes (SERVER_API_IMPORT_LIMIT). */
  importLimit: number;
  /** A token's lifetime when POST users/{id}/tokens names none (LOGIN_TOKEN_TTL_S, within TOKEN_MAX_TTL_S). */
  tokenTtlS: number;
}

/** The `{id}` of the path: a positive integer, else 400. */
export function pathId(params: unknown): number {
  const raw = (params as { id?: string }).id ?? '';
  if (!/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw badRequest('id must be a positive integer.');
  return Number(raw);
}

/**
 * The reason of a change: `reason` in the JSON body (unless the body is a record of its own, whose
 * fields are the record's: `inBody` false), else in the query string; at most REASON_MAX_LENGTH characters
 * of plain text.
 */
export function changeOf(request: FastifyRequest, inBody = true): Change {
  const body = inBody ? (request.body as Record<string, unknown> | null | undefined) : undefined;
  const query = request.query as Record<string, unknown> | undefined;
  const reason = (body && typeof body === 'object' && !Array.isArray(body) ? body.reason : undefined) ?? query?.reason;
  if (reason !== undefined && reason !== null && typeof reason !== 'string') throw badRequest('reason must be a string.');
  if (typeof reason === 'string' && reason.length > REASON_MAX_LENGTH)
    throw badRequest(`reason must be at most ${REASON_MAX_LENGTH} characters.`);
  // Stored in the audit log as given: PostgreSQL refuses a NUL, and a lone surrogate has no UTF-8 form.
  const problem = typeof reason === 'string' ? plainTextProblem(reason) : null;
  if (problem) throw badRequest(notPlainTextMessage('reason', problem));
  return { actor: { kind: 'server_key', name: request.serverKey! }, reason: reason || null };
}

export const notFailedMessage = (id: number | string, status: string) =>
  `Delivery ${id} is ${status}, not failed: only a failed delivery is sent again.`;
export const SUPERSEDED_MESSAGE =
  'This mail stays failed: a mail about the same conversation is pending, and it carries the same unread messages.';

const WHAT: Record<string, string> = {
  no_such_user: 'user',
  no_such_listing: 'listing',
  no_such_message: 'message',
  no_such_report: 'report',
  no_such_delivery: 'delivery',
};

/** A refused operation, in shape B; `fieldOf` turns a document path into the field the client sent. */
export function operatorError(error: OperatorError, id: number | string, fieldOf: (path: string) => string = (p) => p): ApiError {
  switch (error.error) {
    case 'site_catalog':
      return conflict(SITE_CATALOG_MESSAGE);
    case 'erased':
      return conflict(`User ${id} was erased: an erased user stays disabled.`);
    case 'disabled':
      return conflict(`User ${id} is disabled: a token for them would be refused. Enable them first.`);
    case 'invalid':
      return badRequest(`${fieldOf(error.path)}: ${error.problem}`);
    case 'not_failed':
      return conflict(notFailedMessage(id, error.status));
    case 'superseded':
      return conflict(SUPERSEDED_MESSAGE);
    default:
      return notFound(WHAT[error.error]!, id);
  }
}

/**
 * A list's cursor: opaque to the client, here the id below which the next page starts. Its form
 * may change; a client passes back what it was given.
 */
export const cursorOf = (beforeId: number): string => Buffer.from(`before:${beforeId}`, 'utf8').toString('base64url');

export function readCursor(cursor: unknown): number | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const text = typeof cursor === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^before:([1-9]\d{0,15})$/.exec(text);
  if (!match) throw badRequest('cursor must be the next_cursor of an earlier page.');
  return Number(match[1]);
}

/** A list's `limit`: 1 to 100, default 20. */
export function readLimit(limit: unknown): number {
  if (limit === undefined || limit === '') return 20;
  const n = typeof limit === 'string' && /^\d{1,3}$/.test(limit) ? Number(limit) : NaN;
  if (!(n >= 1 && n <= 100)) throw badRequest('limit must be between 1 and 100.');
  return n;
}

/** The next page's cursor: the last item's id when the page is full, else null (no more). */
export const nextCursor = (items: ReadonlyArray<{ id: number }>, limit: number): string | null =>
  items.length === limit ? cursorOf(items[items.length - 1]!.id) : null;

/**
 * The server API's routes read their parameters and bodies by hand (the import's parser names the
 * field as `souk import` does; a reason or a cursor gets its own message): their schemas document
 * them in the OpenAPI document, and this validator lets every request through to the handler.
 */
export const READ_BY_HAND = () => () => true;
