/**
 * GET {base_url}/files/… : the files uploaded with messages (docs/files.md), when Souk serves
 * FILES_DIR itself. Names are content-addressed, so their bytes never change: cached for a year.
 * The type comes from the name Souk gave the file; `nosniff` keeps browsers to it, and documents
 * are downloads, never shown in the site's origin. One byte range is served (a PDF reader's).
 * Under FILES_ACCESS=participants a file is served only through a signed address that has not
 * expired (auth/file-addresses.ts), and caches keep it no longer than the address lives.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { FileAddressSigning } from '../../auth/file-addresses.js';
import type { ByteRange, FileStorage, StoredFile } from '../../domain/files/storage.js';
import { typeOfExtension } from '../../domain/files/types.js';

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` within `size`; null when unsatisfiable; undefined to send it all (several ranges, or none). */
export function byteRange(header: string | undefined, size: number): ByteRange | null | undefined {
  const m = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    return suffix === 0 || size === 0 ? null : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  return start >= size || end < start ? null : { start, end };
}

const notFound = (reply: FastifyReply) => reply.code(404).type('text/plain; charset=utf-8').send('Not found');

const PUBLIC_CACHE = 'public, max-age=31536000, immutable';
const REFUSED = { expired: 'This file address has expired', invalid: 'This file address is not signed' } as const;

type Query = Record<string, unknown>;

/** Who may have the file, as caches are told; or, under FILES_ACCESS=participants, why the address is refused. */
function access(addresses: FileAddressSigning | undefined, key: string, query: Query): { cache: string } | { refused: string } {
  if (!addresses) return { cache: PUBLIC_CACHE };
  const check = addresses.check(key, query.expires, query.signature);
  return check.ok ? { cache: `private, max-age=${check.secondsLeft}, immutable` } : { refused: REFUSED[check.problem] };
}

/** The file's bytes, or the one range asked for (206, or 416 when out of the file). */
async function sendBytes(reply: FastifyReply, storage: FileStorage, key: string, whole: StoredFile, rangeHeader: string | undefined) {
  const range = byteRange(rangeHeader, whole.size);
  if (range === undefined) return reply.header('Content-Length', whole.size).send(whole.body);
  whole.body.destroy();
  if (range === null) return reply.code(416).header('Content-Range', `bytes */${whole.size}`).send();
  const part = await storage.get(key, range);
  if (!part) return notFound(reply);
  return reply
    .code(206)
    .header('Content-Range', `bytes ${range.start}-${range.end}/${whole.size}`)
    .header('Content-Length', range.end - range.start + 1)
    .send(part.body);
}

export function fileRoutes(storage: FileStorage, addresses?: FileAddressSigning): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { '*': string }; Querystring: Query }>('/files/*', { schema: { hide: true } }, async (request, reply) => {
      const key = request.params['*'];
      const type = typeOfExtension(/\.([a-z0-9]+)$/.exec(key)?.[1] ?? '');
      if (type === undefined) return notFound(reply);
      // Checked before the file is looked for: a refused address tells nothing of what is stored.
      const allowed = access(addresses, key, request.query);
      if ('refused' in allowed) return reply.code(403).type('text/plain; charset=utf-8').send(allowed.refused);
      const whole = await storage.get(key);
      if (!whole) return notFound(reply);
      reply
        .header('Content-Type', type)
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', allowed.cache)
        .header('Accept-Ranges', 'bytes')
        .header('Content-Security-Policy', "default-src 'none'; sandbox");
      if (!type.startsWith('image/')) reply.header('Content-Disposition', `attachment; filename="${key.split('/').pop()}"`);
      return sendBytes(reply, storage, key, whole, request.headers.range);
    });
  };
}
