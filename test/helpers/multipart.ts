/** Multipart bodies built byte for byte, for forms no well-behaved client would send. */

export interface FormPart {
  name: string;
  /** A file part when given (may be empty). */
  filename?: string;
  /** The part's Content-Type header, when given. */
  type?: string;
  body: string | Buffer;
}

export const BOUNDARY = 'souk-form-boundary';
export const FORM_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** One part's head and body, with the boundary before it. */
export function formPart(part: FormPart): Buffer {
  const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
  const head = `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${part.type === undefined ? '' : `Content-Type: ${part.type}\r\n`}\r\n`;
  return Buffer.concat([
    Buffer.from(head, 'utf8'),
    Buffer.isBuffer(part.body) ? part.body : Buffer.from(part.body, 'utf8'),
    Buffer.from('\r\n'),
  ]);
}

/** A whole form: its parts and the closing boundary. */
export const formBody = (parts: FormPart[]): Buffer => Buffer.concat([...parts.map(formPart), Buffer.from(`--${BOUNDARY}--\r\n`)]);
