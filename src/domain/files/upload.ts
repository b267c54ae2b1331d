/**
 * Files uploaded with a message (docs/files.md): each one's type read from its bytes and checked
 * against the accepted types, images re-encoded (images.ts), then stored under content-addressed
 * names. Every file is checked and re-encoded before any is stored: a refused message stores
 * nothing. The message is committed after its files are stored, so a crash in between leaves
 * files no message names, which the sweep (sweep.ts) removes; never a message without its file.
 * A file once stored is never deleted on a request's behalf, whatever becomes of its message: the
 * same bytes may belong to a message another request committed at the same moment. What no
 * message names is the sweep's to remove.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import type { UploadedAttachment } from '../model.js';
import type { FileStorage } from './storage.js';
import { FILE_EXTENSIONS } from './types.js';
import { audioTypeOf, checkAudio, claimsAudio } from './audio.js';
import { ImagesBusy, loadImageCodec, reencodeImage, type ImageFormat, type ImageLimits } from './images.js';

/** A file as received, in a temporary file. */
export interface ReceivedFile {
  path: string;
  /** As the client named it. */
  name: string;
  /** As the client declared it (only used to tell Word from Excel in an old Office file). */
  declaredType: string;
  size: number;
}

export interface UploadLimits {
  maxCount: number;
  maxBytes: number;
  /** Longest audio file accepted, in seconds (FILES_AUDIO_MAX_S). */
  audioMaxS: number;
  /** Accepted MIME types. */
  types: readonly string[];
  image: ImageLimits;
}

export interface StoredUploads {
  attachments: UploadedAttachment[];
  /** The storage keys written. */
  keys: string[];
}

/**
 * `busy`: the image queue is full (images.ts, ImagesBusy): the server's state, not the file's fault.
 * `tooLong`: audio longer than accepted (413, as too large). `unsupported`: a file the client said
 * is audio whose bytes are not audio Souk accepts (415).
 */
export type UploadRefusal = { file: string; reason: string; tooLarge: boolean; busy?: boolean; tooLong?: boolean; unsupported?: boolean };

export type StoreUploadsResult = { ok: true; value: StoredUploads } | { ok: false; error: UploadRefusal };

const IMAGE_FORMATS: Record<string, ImageFormat> = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp' };

/** Word's and Excel's old formats share one container (CFB): only the name or declared type tells them apart. */
const OLD_OFFICE: Record<string, string> = { '.doc': 'application/msword', '.xls': 'application/vnd.ms-excel' };

/** The plugin's kinds: `image`, `video`, `audio` or `file`, by MIME type. */
export function kindOf(mimeType: string): UploadedAttachment['type'] {
  const top = mimeType.split('/', 1)[0];
  return top === 'image' || top === 'video' || top === 'audio' ? top : 'file';
}

/**
 * The name as shown: no folders (either slash), no control or bidirectional-override characters,
 * at most 255 characters; `file` when nothing is left.
 */
export function cleanFileName(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, '').trim();
  const chars = Array.from(clean);
  return (chars.length > 255 ? chars.slice(0, 255).join('') : clean) || 'file';
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export const keyFor = (digest: string, ext: string, suffix = '') => `chat/${digest.slice(0, 2)}/${digest}${suffix}.${ext}`;

/** The MIME type the bytes show, as accepted (with an audio file's duration), or why not. */
async function typeOf(
  file: ReceivedFile,
  limits: UploadLimits,
): Promise<{ mimeType: string; duration?: number } | { reason: string; tooLong?: boolean; unsupported?: boolean }> {
  const types = limits.types;
  // Loaded with the first upload, not with every process that could receive one.
  const { fileTypeFromFile } = await import('file-type');
  const found = await fileTypeFromFile(file.path);
  let mimeType = found?.mime as string | undefined;
  if (mimeType === 'application/x-cfb') {
    mimeType = OLD_OFFICE[extname(file.name).toLowerCase()] ?? Object.values(OLD_OFFICE).find((t) => t === file.declaredType.toLowerCase());
  }
  const audioType = audioTypeOf(mimeType);
  if (audioType !== undefined && types.includes(audioType)) {
    const audio = await checkAudio(file.path, audioType, limits.audioMaxS);
    if (audio?.ok) return { mimeType: audio.mimeType, duration: audio.duration };
    if (audio) return { reason: audio.reason, tooLong: audio.tooLong, unsupported: !audio.tooLong };
  }
  // A file sent as audio whose bytes are not (a fake, or a format Souk does not take): 415.
  const unsupported = claimsAudio(file.name, file.declaredType);
  if (mimeType === undefined)
    return { reason: unsupported ? 'its content is not audio Souk accepts' : 'its content is not of an accepted type', unsupported };
  if (!types.includes(mimeType)) return { reason: `its content is ${mimeType}, not an accepted type`, unsupported };
  return { mimeType };
}

interface Prepared {
  attachment: UploadedAttachment;
  puts: Array<{ key: string; body: Buffer | (() => NodeJS.ReadableStream); contentType: string }>;
}

const BUSY = Symbol('images busy');

async function prepare(
  storage: FileStorage,
  file: ReceivedFile,
  type: { mimeType: string; duration?: number },
  limits: UploadLimits,
): Promise<Prepared | string | typeof BUSY> {
  const { mimeType, duration } = type;
  const name = cleanFileName(file.name);
  const ext = FILE_EXTENSIONS[mimeType] ?? 'bin';
  const format = IMAGE_FORMATS[mimeType];
  if (format === undefined) {
    const key = keyFor(await sha256Of(file.path), ext);
    return {
      // Audio is stored as sent (no transcoding), with its duration in seconds.
      attachment: {
        url: storage.url(key),
        type: kindOf(mimeType),
        mimeType,
        name,
        size: file.size,
        ...(duration !== undefined && { duration }),
      },
      puts: [{ key, body: () => createReadStream(file.path), contentType: mimeType }],
    };
  }
  // A codec that cannot load is the server's fault, not the image's: not caught here.
  await loadImageCodec();
  let image;
  try {
    image = await reencodeImage(file.path, format, limits.image);
  } catch (err) {
    if (err instanceof ImagesBusy) return BUSY;
    const message = err instanceof Error ? err.message : '';
    if (/pixel limit/i.test(message)) return 'the image has more pixels than accepted';
    if (/timeout/i.test(message)) return 'the image took too long to read';
    return 'the image cannot be read';
  }
  const digest = sha256(image.bytes);
  const key = keyFor(digest, ext);
  const thumbnailKey = keyFor(digest, ext, '-thumb');
  return {
    attachment: {
      url: storage.url(key),
      type: 'image',
      mimeType,
      name,
      size: image.bytes.length,
      thumbnail: storage.url(thumbnailKey),
      width: image.width,
      height: image.height,
    },
    puts: [
      { key, body: image.bytes, contentType: mimeType },
      { key: thumbnailKey, body: image.thumbnail, contentType: mimeType },
    ],
  };
}

/** Checks, re-encodes and stores the message's files, in their order; nothing stored when one is refused. */
export async function storeUploads(storage: FileStorage, files: ReceivedFile[], limits: UploadLimits): Promise<StoreUploadsResult> {
  const prepared: Prepared[] = [];
  for (const file of files) {
    const name = cleanFileName(file.name);
    if (file.size > limits.maxBytes)
      return { ok: false, error: { file: name, reason: `it is larger than ${limits.maxBytes} bytes`, tooLarge: true } };
    const type = await typeOf(file, limits);
    if ('reason' in type) {
      const { reason, tooLong, unsupported } = type;
      return {
        ok: false,
        error: { file: name, reason, tooLarge: false, ...(tooLong && { tooLong }), ...(unsupported && { unsupported }) },
      };
    }
    const done = await prepare(storage, file, type, limits);
    if (done === BUSY) return { ok: false, error: { file: name, reason: 'too many images wait', tooLarge: false, busy: true } };
    if (typeof done === 'string') return { ok: false, error: { file: name, reason: done, tooLarge: false } };
    prepared.push(done);
  }
  const keys: string[] = [];
  // A failed put (a full disk) leaves the keys written before it to the sweep: see above.
  for (const { puts } of prepared) {
    for (const put of puts) {
      keys.push(put.key);
      const body = Buffer.isBuffer(put.body) ? put.body : (put.body() as import('node:stream').Readable);
      await storage.put(put.key, body, put.contentType);
    }
  }
  return { ok: true, value: { attachments: prepared.map((p) => p.attachment), keys } };
}

/**
 * Deletes stored keys no message names (`isReferenced` by the key's digest): the files of a
 * deleted message. Never on a request's behalf (see above).
 */
export async function forgetUploads(
  storage: FileStorage,
  keys: string[],
  isReferenced: (digest: string) => Promise<boolean>,
): Promise<void> {
  for (const key of keys) {
    const digest = /[0-9a-f]{64}/.exec(key)?.[0];
    if (digest !== undefined && (await isReferenced(digest))) continue;
    await storage.delete(key).catch(() => undefined);
  }
}
