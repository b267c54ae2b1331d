/** Request values that JSON Schema alone cannot settle (D3, D6, N2). */
import { badRequest, MESSAGES } from './errors.js';
import { Type } from '@sinclair/typebox';

/** A JSON integer, or a string of digits (form bodies); the range is checked by listingId(). */
export const ListingIdField = Type.Union(
  [Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.String({ pattern: '^[0-9]{1,32}$' })],
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

/** A list's page (from 1) and its size: `fallback` when absent, else 1 to 2^53-1 and per_page at most 100 (N2). */
export function pageParameters(query: { page?: string; per_page?: string }, perPageFallback: number): { page: number; perPage: number } {
  const page = positive(query.page, 1, MESSAGES.page);
  const perPage = positive(query.per_page, perPageFallback, MESSAGES.perPage);
  if (perPage > MAX_PER_PAGE) throw badRequest(MESSAGES.perPageRange);
  return { page, perPage };
}

function positive(value: string | undefined, fallback: number, message: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw badRequest(message);
  return n;
}
