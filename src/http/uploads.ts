/**
 * The plugin's upload form on POST my/chat/message and POST my/chat/conversation (docs/files.md):
 * `multipart/form-data` with the message's fields and its files in `files[]` (or `files`). Only
 * these two routes parse multipart, and only after the caller is authenticated (onRequest): the
 * body of an unauthenticated request is never read. Each file streams to a temporary file as it
 * arrives (never held whole in memory), at most FILES_MAX_BYTES, at most FILES_MAX_COUNT of them;
 * then the use case's files are checked, re-encoded and stored (domain/files/upload.ts) before the
 * route runs, and the temporary files go when the reply is sent.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FileReferences } from '../domain/files/references.js';
import type { FileAddressSigning } from '../auth/file-addresses.js';
import type { FileStorage } from '../domain/files/storage.js';
import { cleanFileName, forgetUploads, storeUploads, type ReceivedFile, type UploadLimits } from '../domain/files/upload.js';
import type { UploadedAttachment } from '../domain/model.js';
import { ApiError, badRequest, shapeB } from './errors.js';

export interface FileDeps {
  storage: FileStorage;
  references: FileReferences;
  limits: UploadLimits;
  /** Where uploads wait while they arrive: a local folder (the sweep empties what a crash leaves). */
  uploadsDir: string;
  /** FILES_ACCESS=participants: a file is served only through a signed address that has not expired. */
  addresses?: FileAddressSigning;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The files uploaded with the message, stored; undefined for a JSON or form body. */
    uploads?: UploadedAttachment[];
  }
}

const FILE_FIELDS = new Set(['files[]', 'files']);
const kReceived = Symbol('received files');
const kStored = Symbol('stored keys');

type Tracked = FastifyRequest & { [kReceived]?: ReceivedFile[]; [kStored]?: string[] };

const tooLarge = (file: string, maxBytes: number) =>
  shapeB(413, 'PAYLOAD_TOO_LARGE', `File "${file}" refused: it is larger than ${maxBytes} bytes.`);

function refused(error: unknown, limits: UploadLimits, current: string | undefined): Error {
  const code = (error as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge(current ?? 'file', limits.maxBytes);
  if (code === 'FST_FILES_LIMIT') return badRequest(`Too many files: at most ${limits.maxCount} per message.`);
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') return badRequest('The form has too many fields.');
  if (code === 'FST_PROTO_VIOLATION') return badRequest('The form names a forbidden field.');
  // The system's own failures (a full disk: ENOSPC) stay errors; anything else is the form's fault.
  if (error instanceof ApiError || (typeof code === 'string' && /^E[A-Z]+$/.test(code))) return error as Error;
  return badRequest('The form could not be read.');
}

/** Reads the form: its fields become the request's body, its files temporary files. */
async function receive(request: Tracked, deps: FileDeps, fieldSize: number): Promise<Record<string, string>> {
  const { limits } = deps;
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  const received: ReceivedFile[] = (request[kReceived] = []);
  let current: string | undefined;
  await mkdir(deps.uploadsDir, { recursive: true });
  try {
    const parts = request.parts({
      limits: {
        fieldNameSize: 100,
        fieldSize,
        fields: 20,
        fileSize: limits.maxBytes,
        files: limits.maxCount,
        headerPairs: 100,
        parts: limits.maxCount + 20,
      },
    });
    for await (const part of parts) {
      if (part.type === 'field') {
        if (typeof part.value === 'string' && !FILE_FIELDS.has(part.fieldname)) fields[part.fieldname] = part.value;
        continue;
      }
      if (!FILE_FIELDS.has(part.fieldname)) {
        part.file.resume();
        throw badRequest(`Files go in the field files[], not "${cleanFileName(part.fieldname)}".`);
      }
      current = cleanFileName(part.filename ?? '');
      const path = join(deps.uploadsDir, randomBytes(12).toString('hex'));
      const file: ReceivedFile = { path, name: part.filename ?? '', declaredType: part.mimetype ?? '', size: 0 };
      received.push(file);
      part.file.on('data', (chunk: Buffer) => (file.size += chunk.length));
      await pipeline(part.file, createWriteStream(path, { mode: 0o600 }));
      if (part.file.truncated) throw tooLarge(current, limits.maxBytes);
    }
  } catch (err) {
    throw refused(err, limits, current);
  }
  return fields;
}

/**
 * Once the reply is sent: the temporary files go, and the stored files of a message that was
 * refused after all (not the caller's conversation, text too long) unless another message names them.
 */
async function cleanUp(deps: FileDeps, request: Tracked, reply: FastifyReply): Promise<void> {
  const received = request[kReceived];
  if (received) await Promise.all(received.map((file) => rm(file.path, { force: true })));
  const stored = request[kStored];
  if (stored && stored.length > 0 && reply.statusCode !== 200) {
    await forgetUploads(deps.storage, stored, (digest) => deps.references.isReferenced(digest));
  }
}

/**
 * Registers the multipart parser in the calling route plugin's scope (the two sending routes' files)
 * and returns the hooks of the routes that take the form; none where uploads are not set up.
 */
export async function acceptUploads(app: FastifyInstance, deps: FileDeps | undefined, fieldSize: number) {
  if (!deps) return {};
  await app.register(multipart, { throwFileSizeLimit: false });
  const receiveForm = uploadHook(deps, fieldSize);
  // Callback hooks that return at once for a JSON or form body: its path allocates nothing more.
  // On these routes only: the other routes of the scope (the conversation's read) pay for nothing.
  return {
    preValidation: (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
      if (!request.isMultipart()) return done();
      receiveForm(request).then(() => done(), done);
    },
    onResponse: (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      if (!(request as Tracked)[kReceived]) return done();
      cleanUp(deps, request as Tracked, reply)
        .catch((err: unknown) => request.log.warn({ err }, 'upload clean-up failed'))
        .finally(done);
    },
    onRequestAbort: async (request: FastifyRequest) => {
      const received = (request as Tracked)[kReceived];
      if (received) await Promise.all(received.map((file) => rm(file.path, { force: true })));
    },
  };
}

/** A multipart body read, checked and its files stored, before validation (the form's fields become the body). */
function uploadHook(deps: FileDeps, fieldSize: number) {
  return async (request: FastifyRequest): Promise<void> => {
    const tracked = request as Tracked;
    const fields = await receive(tracked, deps, fieldSize);
    const files = tracked[kReceived] ?? [];
    const stored = await storeUploads(deps.storage, files, deps.limits);
    if (!stored.ok) {
      const { file, reason, tooLarge: large } = stored.error;
      throw large ? tooLarge(file, deps.limits.maxBytes) : badRequest(`File "${file}" refused: ${reason}.`);
    }
    tracked[kStored] = stored.value.keys;
    // A photo alone may come without a text field at all: its text is empty (D6 allows it with files).
    if (fields.text === undefined && files.length > 0) fields.text = '';
    request.body = fields;
    request.uploads = stored.value.attachments;
  };
}
