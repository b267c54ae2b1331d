/** Request-body values that JSON Schema alone cannot settle (D3, D6). */
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
