/**
 * A listing's images and terms as JSON text, from the domain's schemas, which the replies' schemas
 * carry as they are. The store keeps those columns in exactly this form (the import writes it;
 * migration 003 rewrote older rows), so a reply carries them as stored, without parsing and
 * serialising again (test/http/conversation-json.test.ts checks the bytes against the plain path).
 */
import fastJson from 'fast-json-stringify';
import { Type } from '@sinclair/typebox';
import { ImageObject, ListingContact, ListingStore, TermObject } from '../../domain/media.js';

export const imagesJson: (images: ImageObject[]) => string = fastJson(Type.Array(ImageObject));
export const termsJson: (terms: TermObject[]) => string = fastJson(Type.Array(TermObject));
export const stringsJson: (items: string[]) => string = fastJson(Type.Array(Type.String()));
export const contactJson: (contact: ListingContact) => string = fastJson(ListingContact);
export const storeJson: (store: ListingStore) => string = fastJson(ListingStore);
