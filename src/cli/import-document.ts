/** The import document (domain/import-document.ts), with the password forms Souk verifies. */
import { dearHashProblem } from '../auth/passwords/forms.js';
import { dearHashMessage as message, parseImportDocument as parse, type ParsedDocument } from '../domain/import-document.js';

export { displayPath, ImportDocument, ImportListing, ImportUser, slugify, type ParsedDocument } from '../domain/import-document.js';

export const parseImportDocument = (value: unknown): ParsedDocument => parse(value, dearHashProblem);

/** Names the user and what is too dear, never the hash. */
export const dearHashMessage = (id: number, login: string, hash: string): string => message(id, login, dearHashProblem(hash) ?? '');
