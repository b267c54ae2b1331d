/**
 * The plugin's upload form on POST my/chat/message and POST my/chat/conversation (docs/files.md):
 * `multipart/form-data` with the message's fields and its files in `files[]` (or `files`). Only
 * these two routes parse multipart, and only after the caller is authenticated (onRequest): the
 * body of an unauthenticated request is never read. A form is read in this order, and what one
 * step refuses costs nothing of the next (docs/hardening.md, "Upload forms"):
 * 1. a place among the forms this process reads at once (FILES_UPLOADS_IN_FLIGHT, a quarter of
 *    them one user's), else 503; from then its body has FILES_UPLOAD_TIMEOUT_MS to arrive, else 408;
 * 2. its fields, which come before its files: only the route's, each once, as plain text (a part
 *    with another content type is refused unread, never parsed as JSON), each within its size and
 *    all of them within BODY_LIMIT, so a form holds little in memory;
 * 3. at its first file, the fields against the route's schema and the route's `authorise`:
 *    everything the use case would refuse, and the abuse limits' places taken, before a byte of a
 *    file is read; a retry's files (its message is stored already) are drained unread;
 * 4. its files, each streamed to a temporary file (never held whole in memory), at most
 *    FILES_MAX_BYTES, at most FILES_MAX_COUNT of them;
 * 5. after validation (preHandler), each file's type read from its bytes, images re-encoded, and
 *    stored (domain/files/upload.ts), then the route's handler.
 * The temporary files go when the request ends, however it ends (a reply, a refusal, the client
 * gone). A stored file is never deleted on the request's behalf: what no message names is the
 * sweep's (domain/files/upload.ts says why).
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import multipart, { type Multipart, type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FileAddressSigning } from '../auth/file-addresses.js';
import type { FileReferences } from '../domain/files/references.js';
import type { FileStorage } from '../domain/files/storage.js';
import { cleanFileName, storeUploads, type ReceivedFile, type UploadLimits } from '../domain/files/upload.js';
import type { UploadedAttachment } from '../domain/model.js';
import { ApiError, badRequest, payloadTooLarge, shapeB, textTooLongMessage } from './errors.js';

export interface FileDeps {
  storage: FileStorage;
  /** Which stored files messages name: the sweep's (server.ts), never a request's. */
  references: FileReferences;
  limits: UploadLimits;
  /** Where uploads wait while they arrive: a local folder (the sweep empties what a crash leaves). */
  uploadsDir: string;
  /** FILES_ACCESS=participants: a file is served only through a signed address that has not expired. */
  addresses?: FileAddressSigning;
  /** The forms this process reads at once, and the time a form's body has. */
  admission: UploadAdmission;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The files uploaded with the message, stored; undefined for a JSON or form body. */
    uploads?: UploadedAttachment[];
    /** Whether the form carried files, read or not (a retry's are not): domain/chat/common.ts. */
    uploadsSent?: boolean;
  }
}

/**
 * Upload forms in flight in this process (FILES_UPLOADS_IN_FLIGHT): at most `max`, and at most a
 * quarter of them (at least 1) one sender's. Invariant: `bySender` holds an entry only for a
 * sender with a form in flight, so it is bounded by `max`.
 */
export class UploadAdmission {
  private total = 0;
  private readonly bySender = new Map<number, number>();
  private readonly perSender: number;
  constructor(
    private readonly max: number,
    readonly timeoutMs: number,
  ) {
    this.perSender = Math.max(1, Math.floor(max / 4));
  }

  /** A place for one of the sender's forms, and how to give it back (once); undefined when none is free. */
  enter(sender: number): (() => void) | undefined {
    const mine = this.bySender.get(sender) ?? 0;
    if (this.total >= this.max || mine >= this.perSender) return undefined;
    this.total++;
    this.bySender.set(sender, mine + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.total--;
      const still = (this.bySender.get(sender) ?? 1) - 1;
      if (still > 0) this.bySender.set(sender, still);
      else this.bySender.delete(sender);
    };
  }
}

/** A form's fields: the route's only, each once. */
export type FormFields = Partial<Record<FormField, string>>;
type FormField = (typeof FORM_FIELDS)[number];

/** What a route checks at a form's first file, before any file is read. */
export interface UploadRoute<P extends { giveBack(): Promise<void> }> {
  /** The field naming the message's conversation or listing: it must come before the first file (con_id may be in the query). */
  subject: 'con_id' | 'listing_id';
  /**
   * Throws what the route would refuse; else the abuse limits' places it took (given back when
   * the request ends without the handler's sending) and whether the message is a retry's, stored
   * already (its files are then drained unread).
   */
  authorise(request: FastifyRequest, fields: FormFields): Promise<{ retry: boolean; places: P }>;
}

const FORM_FIELDS = ['con_id', 'listing_id', 'text', 'temp_id'] as const;
const FILE_FIELDS = new Set(['files[]', 'files']);
/** An id's digits (temp_id: up to 33 characters), with room to spare. */
const ID_BYTES = 64;
/** The most bytes a character takes in UTF-8: a text of more bytes than 4 × TEXT_MAX_LENGTH is too long. */
const UTF8_MAX = 4;

/** One request's form: what it received, what is being written, the places its route took. */
interface Form<P> {
  received: ReceivedFile[];
  /** Temporary files being written: settled before the files go. */
  writing: Set<Promise<void>>;
  /** The file part being read, destroyed when the request ends first. */
  current?: Readable;
  /** The request ended (replied, refused or cut off) or its time ran out: reading stops. */
  stopped: boolean;
  places?: P;
}
const kForm = Symbol('upload form');
type WithForm<P> = FastifyRequest & { [kForm]?: Form<P> };

const tooLarge = (file: string, maxBytes: number) =>
  shapeB(413, 'PAYLOAD_TOO_LARGE', `File "${file}" refused: it is larger than ${maxBytes} bytes.`);
const formsBusy = () =>
  shapeB(503, 'SERVICE_UNAVAILABLE', 'Too many upload forms at once. Please try again shortly.', { 'retry-after': '1' });
const imagesBusy = () =>
  shapeB(503, 'SERVICE_UNAVAILABLE', 'Too many images wait to be processed. Please try again shortly.', { 'retry-after': '2' });
const formTimeout = (ms: number) =>
  shapeB(408, 'REQUEST_TIMEOUT', `The upload form was not received in time (within ${ms} ms).`, { connection: 'close' });
const fieldsFirst = (field: string) => badRequest(`The form's fields go before its files: "${field}" must come before the first file.`);
/** A name or type the client sent, as an error message shows it: no control or bidirectional characters, at most 100. */
const nameOf = (name: string) =>
  // eslint-disable-next-line no-control-regex
  name.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff"]/g, '').slice(0, 100);

function refused(error: unknown, limits: UploadLimits, current: string | undefined): Error {
  const code = (error as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge(current ?? 'file', limits.maxBytes);
  if (code === 'FST_FILES_LIMIT') return badRequest(`Too many files: at most ${limits.maxCount} per message.`);
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') return badRequest('The form has too many fields.');
  if (code === 'FST_PROTO_VIOLATION') return badRequest('The form names a forbidden field.');
  // The system's own failures (a full disk: ENOSPC) stay errors, the schema's refusals keep their
  // message (error-handler.ts); anything else is the form's fault.
  if (error instanceof ApiError || (error as { validation?: unknown }).validation || (typeof code === 'string' && /^E[A-Z]+$/.test(code)))
    return error as Error;
  return badRequest('The form could not be read.');
}

interface FieldLimits {
  textMaxLength: number;
  bodyLimit: number;
}

/** The largest field busboy holds: a text at its limit, or BODY_LIMIT when that is less. */
const fieldSize = (limits: FieldLimits) => Math.min(Math.max(UTF8_MAX * limits.textMaxLength, ID_BYTES), limits.bodyLimit);

/** Takes a field into `fields`, or throws why not; returns its size in bytes. */
function takeField(fields: FormFields, name: string, value: string, truncated: boolean, limits: FieldLimits): number {
  if (FILE_FIELDS.has(name)) throw badRequest(`The form's "${name}" parts must be files, with a file name.`);
  if (!(FORM_FIELDS as readonly string[]).includes(name)) {
    throw badRequest(`The form has a field this route does not take: "${nameOf(name)}". Its fields are ${FORM_FIELDS.join(', ')}.`);
  }
  const field = name as FormField;
  if (fields[field] !== undefined) throw badRequest(`The form gives the field "${field}" twice.`);
  const bytes = Buffer.byteLength(value);
  if (field === 'text') {
    if (truncated && fieldSize(limits) < UTF8_MAX * limits.textMaxLength) throw payloadTooLarge(limits.bodyLimit);
    if (truncated || bytes > UTF8_MAX * limits.textMaxLength) throw badRequest(textTooLongMessage(limits.textMaxLength));
  } else if (truncated || bytes > ID_BYTES) {
    throw badRequest(`The form's field "${field}" is longer than ${ID_BYTES} bytes.`);
  }
  fields[field] = value;
  return bytes;
}

/** The form's fields are those of the route's body schema: checked before any file is read. */
function checkSchema(request: FastifyRequest, fields: FormFields): void {
  const validate = request.getValidationFunction('body');
  if (validate && !validate({ ...fields, text: fields.text ?? '' })) {
    throw Object.assign(new Error('the form does not match the schema'), { validation: validate.errors ?? [] });
  }
}

const drain = (file: Readable) =>
  pipeline(
    file,
    new Writable({
      write: (_chunk, _encoding, next) => next(),
    }),
  );

/** Streams the part to a temporary file of the form's; its write settles before the file can go. */
async function receiveFile<P>(form: Form<P>, part: MultipartFile, uploadsDir: string): Promise<void> {
  const path = join(uploadsDir, randomBytes(12).toString('hex'));
  const file: ReceivedFile = { path, name: part.filename ?? '', declaredType: part.mimetype ?? '', size: 0 };
  form.received.push(file);
  part.file.on('data', (chunk: Buffer) => (file.size += chunk.length));
  const write = pipeline(part.file, createWriteStream(path, { mode: 0o600 }));
  const settled = write.then(
    () => undefined,
    () => undefined,
  );
  form.writing.add(settled);
  try {
    await write;
  } finally {
    form.writing.delete(settled);
  }
}

/** Reads the form (steps 2 to 4): its fields become the request's body, its files temporary files. */
async function read<P extends { giveBack(): Promise<void> }>(
  request: FastifyRequest,
  form: Form<P>,
  deps: FileDeps,
  route: UploadRoute<P>,
  fieldLimits: FieldLimits,
): Promise<FormFields> {
  const { limits } = deps;
  const fields: FormFields = {};
  let bytes = 0;
  let retry: boolean | undefined;
  let current: string | undefined;
  await mkdir(deps.uploadsDir, { recursive: true });
  try {
    const parts = request.parts({
      limits: {
        fieldNameSize: 100,
        fieldSize: fieldSize(fieldLimits),
        fields: FORM_FIELDS.length,
        fileSize: limits.maxBytes,
        files: limits.maxCount,
        headerPairs: 100,
        parts: limits.maxCount + FORM_FIELDS.length,
      },
      // A part with a file name, or with a content type other than plain text, is streamed as a
      // file (never held, never parsed): then refused below unless it is a file of files[].
      isPartAFile: (_name, type, filename) => filename !== undefined || type !== 'text/plain',
    });
    for await (const part of parts as AsyncIterableIterator<Multipart>) {
      if (form.stopped) throw new Error('the request ended');
      if (part.type === 'field') {
        if (retry !== undefined) throw fieldsFirst(part.fieldname === '' ? 'every field' : nameOf(part.fieldname));
        bytes += takeField(fields, part.fieldname, String(part.value), part.valueTruncated, fieldLimits);
        if (bytes > fieldLimits.bodyLimit) throw payloadTooLarge(fieldLimits.bodyLimit);
        continue;
      }
      if (!FILE_FIELDS.has(part.fieldname)) {
        part.file.resume();
        if (part.filename === undefined)
          throw badRequest(`The form's field "${nameOf(part.fieldname)}" must be plain text, not ${nameOf(part.mimetype)}.`);
        throw badRequest(`Files go in the field files[], not "${nameOf(part.fieldname)}".`);
      }
      current = cleanFileName(part.filename ?? '');
      form.current = part.file;
      if (retry === undefined) {
        try {
          retry = await authorise(request, form, route, fields);
        } catch (err) {
          part.file.resume();
          throw err;
        }
        request.uploadsSent = true;
      }
      if (retry) await drain(part.file);
      else await receiveFile(form, part, deps.uploadsDir);
      form.current = undefined;
      if (part.file.truncated) throw tooLarge(current, limits.maxBytes);
    }
  } catch (err) {
    throw refused(err, limits, current);
  }
  return fields;
}

/** Step 3, at the form's first file: throws what the route would refuse; whether the message is a retry's. */
async function authorise<P extends { giveBack(): Promise<void> }>(
  request: FastifyRequest,
  form: Form<P>,
  route: UploadRoute<P>,
  fields: FormFields,
): Promise<boolean> {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const named = fields[route.subject] ?? query[route.subject];
  if (named === undefined || named === '') throw fieldsFirst(route.subject);
  checkSchema(request, fields);
  const { retry, places } = await route.authorise(request, fields);
  if (form.stopped) {
    await places.giveBack();
    throw new Error('the request ended');
  }
  form.places = places;
  return retry;
}

/**
 * Registers the multipart parser in the calling route plugin's scope (the two sending routes' files)
 * and returns the hooks of the routes that take the form, and the places a form's `authorise` took;
 * no hooks where uploads are not set up.
 */
export async function acceptUploads<P extends { giveBack(): Promise<void> }>(
  app: FastifyInstance,
  deps: FileDeps | undefined,
  route: UploadRoute<P>,
  fieldLimits: FieldLimits,
) {
  const placesOf = (request: FastifyRequest): P | undefined => (request as WithForm<P>)[kForm]?.places;
  if (!deps) return { hooks: {}, placesOf };
  await app.register(multipart, { throwFileSizeLimit: false });
  const { admission } = deps;

  /** Steps 1 to 4; the form's end (its temporary files gone, its place free) once the reply closes, however. */
  async function receiveForm(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const leave = admission.enter(request.caller!.id);
    if (!leave) throw formsBusy();
    const form: Form<P> = { received: [], writing: new Set(), stopped: false };
    (request as WithForm<P>)[kForm] = form;
    reply.raw.once('close', () => {
      form.stopped = true;
      leave();
      form.current?.destroy();
      endForm(form).catch((err: unknown) => request.log.warn({ err }, 'upload clean-up failed'));
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        form.stopped = true;
        form.current?.destroy();
        reject(formTimeout(admission.timeoutMs));
      }, admission.timeoutMs);
    });
    let fields: FormFields;
    try {
      fields = await Promise.race([read(request, form, deps!, route, fieldLimits), late]);
    } finally {
      clearTimeout(timer);
    }
    // A photo alone may come without a text field at all: its text is empty (D6 allows it with files).
    if (fields.text === undefined && request.uploadsSent) fields.text = '';
    request.body = fields;
  }

  // Callback hooks that return at once for a JSON or form body: its path allocates nothing more.
  // On these routes only: the other routes of the scope (the conversation's read) pay for nothing.
  const hooks = {
    preValidation: (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
      if (!request.isMultipart()) return done();
      receiveForm(request, reply).then(
        () => done(),
        (err: Error) => {
          // Refused before the body arrived whole: no reason to read the rest of it.
          if (!request.raw.complete) reply.header('connection', 'close');
          done(err);
        },
      );
    },
    preHandler: (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
      const form = (request as WithForm<P>)[kForm];
      if (!form || form.received.length === 0) return done();
      storeForm(request, form, deps!).then(() => done(), done);
    },
    // The reply is sent: the handler's sending ran, or never will. Places it did not use go back.
    onResponse: (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
      const places = placesOf(request);
      if (!places) return done();
      places
        .giveBack()
        .catch((err: unknown) => request.log.warn({ err }, 'abuse limit places not given back'))
        .finally(done);
    },
  };
  return { hooks, placesOf };
}

/** Step 5: the files checked, re-encoded and stored; the form's text is empty when it has none. */
async function storeForm<P>(request: FastifyRequest, form: Form<P>, deps: FileDeps): Promise<void> {
  if (form.stopped) throw badRequest('The request ended before its files were stored.');
  const stored = await storeUploads(deps.storage, form.received, deps.limits);
  if (!stored.ok) {
    const { file, reason, tooLarge: large, busy, tooLong, unsupported } = stored.error;
    if (busy) throw imagesBusy();
    if (large) throw tooLarge(file, deps.limits.maxBytes);
    if (tooLong) throw shapeB(413, 'PAYLOAD_TOO_LARGE', `File "${file}" refused: ${reason}.`);
    if (unsupported) throw shapeB(415, 'UNSUPPORTED_MEDIA_TYPE', `File "${file}" refused: ${reason}.`);
    throw badRequest(`File "${file}" refused: ${reason}.`);
  }
  request.uploads = stored.value.attachments;
}

/** The form's temporary files go, once those being written are closed (else a late open would leave one). */
async function endForm<P>(form: Form<P>): Promise<void> {
  await Promise.all(form.writing);
  await Promise.all(form.received.map((file) => rm(file.path, { force: true })));
}
