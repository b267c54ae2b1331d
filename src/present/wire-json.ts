/**
 * The interface's JSON for a listing's images and terms, from the same schemas as the replies.
 * The store keeps those columns in exactly this form (the import writes it; migration 003
 * rewrote older rows), so a reply carries them as stored, without parsing and serialising again.
 */
import fastJson from 'fast-json-stringify';
import { Type } from '@sinclair/typebox';
import { ImageObject, TermObject } from './wire-schemas.js';

export const imagesJson: (images: ImageObject[]) => string = fastJson(Type.Array(ImageObject));
export const termsJson: (terms: TermObject[]) => string = fastJson(Type.Array(TermObject));
