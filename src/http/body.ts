/** Request values that JSON Schema alone cannot settle (D3, D6, N2). */
import { plainTextProblem } from '../domain/chat/common.js';
import { badRequest, MESSAGES, notPlainTextMessage, requiredIdMessage, textTooLongMessage } from './errors.js';
import { Type } from '@sinclair/typebox';

/**
 * A JSON integer, or a string of digits (form bodies); the range is checked by listingId(), and ""
 * passes here so that it can count as absent where listing_id is optional (N2).
 */
export const ListingIdField = Type.Union(
  [Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.String({ pattern: '^[0-9]{0,32}$' })],
  { description: 'Listing id: a positive integer, or a string of its decimal digits.' },
);

export function listingId(value: number | string): number {
  const id = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(id) || id < 1) throw badRequest(MESSAGES.listingId);
  return id;
}

export const TempIdField = Type.Union(
  [
    Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }),
    Type.String({ pattern: '^(-?[0-9]{1,32})?$' }),
    Type.Null(),
  ],
  { description: 'Client-side id of the message, echoed as a string; a retry with the same one stores nothing new.' },
);

/** "" and null mean no temp_id (form clients send empty fields). */
export function tempId(value: number | string | null | undefined): string | null {
  if (value === undefined || value === null || value === '') return null;
  return String(value);
}

/** Most items a list's page holds (N2). */
export const MAX_PER_PAGE = 100;

/** `page` or `per_page` in a query string: decimal digits; "" counts as absent (N2). */
export const PageField = (description: string) => Type.Optional(Type.String({ pattern: '^[0-9]*$', description }));

/** An id in a body: a JSON integer or a string of digits; null and "" count as absent (N2). Checked as IdQueryField. */
export const IdBodyField = (description: string) =>
  Type.Optional(
    Type.Union([Type.Integer(), Type.String(), Type.Null()], {
      description: `${description} A positive integer or a string of its digits.`,
    }),
  );

/** An id in a query string; its value is checked by requiredId()/optionalId(), with N2's messages. */
export const IdQueryField = (description: string) => Type.Optional(Type.String({ description }));

/**
 * A request's parameters as WordPress reads them (N2): the query string, with the body's fields
 * (JSON or form) over it. The apps send `con_id` and `message_id` in the query of a PUT whose
 * JSON body is empty.
 */
export function requestParameters(query: unknown, body: unknown): Record<string, unknown> {
  const fromQuery = query !== null && typeof query === 'object' ? query : {};
  const fromBody = body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {};
  return { ...fromQuery, ...fromBody };
}

/** null and "" count as absent (N2: form clients send empty fields, JSON clients null). */
const absent = (value: unknown) => value === undefined || value === null || value === '';

/** A JSON integer or a string of decimal digits, at least `min`; undefined when it is neither. */
function integerOf(value: unknown, min: number): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^[0-9]{1,32}$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n >= min ? n : undefined;
}

/** A required id (1 to 2^53-1, D3): else 400 "`name` is required and must be a positive integer.". */
export function requiredId(params: Record<string, unknown>, name: string): number {
  const id = integerOf(params[name], 1);
  if (id === undefined) throw badRequest(requiredIdMessage(name));
  return id;
}

/** An optional id: null when absent, else as requiredId(). */
export function optionalId(params: Record<string, unknown>, name: string): number | null {
  return absent(params[name]) ? null : requiredId(params, name);
}

/** An optional count or position from `min`: `fallback` when absent, else 400 `message`. */
export function optionalInteger(params: Record<string, unknown>, name: string, fallback: number, min: number, message: string): number {
  if (absent(params[name])) return fallback;
  const n = integerOf(params[name], min);
  if (n === undefined) throw badRequest(message);
  return n;
}

/** A list's page (from 1) and its size: `fallback` when absent, else 1 to 2^53-1 and per_page at most 100 (N2). */
export function pageParameters(params: { page?: unknown; per_page?: unknown }, perPageFallback: number): { page: number; perPage: number } {
  const page = optionalInteger(params, 'page', 1, 1, MESSAGES.page);
  const perPage = optionalInteger(params, 'per_page', perPageFallback, 1, MESSAGES.perPage);
  if (perPage > MAX_PER_PAGE) throw badRequest(MESSAGES.perPageRange);
  return { page, perPage };
}

/** Longer than `max` characters (code points, as people count them). */
export const tooLong = (text: string, max: number) => text.length > max && [...text].length > max;

/** A user's words beside the chat (a report's `message` or `reason`): at most `max` characters, and stored verbatim as chat text is (no NUL). */
export function checkWords(text: string, field: string, max: number): void {
  if (tooLong(text, max)) throw badRequest(textTooLongMessage(max, field));
  const problem = plainTextProblem(text);
  if (problem !== null) throw badRequest(notPlainTextMessage(field, problem));
}
