/** The upload form's part of the two sending routes' schemas (http/uploads.ts, docs/files.md). */
import type { UploadLimits } from '../../../../domain/files/upload.js';
import { CONSUMES } from '../../common.schema.js';

/**
 * With uploads set up, the routes also take `multipart/form-data`: the same fields, and the files
 * in `files[]`, which the OpenAPI document adds to that body (plugins/openapi.ts, multipartBodies).
 */
export function uploadForm(uploads: UploadLimits | undefined, description: string) {
  if (!uploads) return { consumes: CONSUMES, description };
  const mb = Math.round((uploads.maxBytes / 1024 / 1024) * 10) / 10;
  return {
    consumes: [...CONSUMES, 'multipart/form-data'],
    description:
      `${description} As \`multipart/form-data\` (the plugin's form) it takes the same fields and up to ${uploads.maxCount} files ` +
      `of at most ${mb} MB each in \`files[]\` (or \`files\`): ${uploads.types.join(', ')}, the type read from the bytes; images ` +
      'are re-encoded without their metadata; audio is stored as sent, with its `duration` in seconds (at most ' +
      `${uploads.audioMaxS} s). A refused file refuses the message: 400, or 413 when too large or too long, or 415 when sent as ` +
      'audio but not audio Souk accepts, naming the file and the reason. ' +
      'The fields (only `con_id`, `listing_id`, `text`, `temp_id`, as plain text) come before the files, and the message is ' +
      'checked before any file is read; too many forms or images at once: 503 with `Retry-After`; a body too slow: 408.',
  };
}
