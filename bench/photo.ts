/**
 * The message-photo row's request: POST my/chat/message as the plugin's upload form, with one
 * photo of about 1 MB and 2400 x 1800 px (a gradient with grain, as a phone's photo compresses),
 * made once per run with sharp: Souk decodes it, scales it to 2048 px and encodes it again.
 */
import sharp from 'sharp';

let photo: Buffer | undefined;

/** Makes the photo; call once before the row. */
export async function preparePhoto(): Promise<Buffer> {
  if (photo) return photo;
  const width = 2400;
  const height = 1800;
  const pixels = Buffer.alloc(width * height * 3);
  let x = 2463534242;
  for (let i = 0; i < pixels.length; i++) {
    // xorshift32: the same photo every run.
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const p = (i / 3) | 0;
    pixels[i] = ((((p % width) + ((p / width) | 0)) * 255) / (width + height) + ((x & 0xff) % 36)) & 0xff;
  }
  photo = await sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
  return photo;
}

const BOUNDARY = 'souk-bench-photo-boundary';
export const PHOTO_CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** The form: con_id, text, temp_id, then the photo in files[]. */
export function photoForm(conId: number, text: string, tempId: number): Buffer {
  if (!photo) throw new Error('preparePhoto() first');
  const field = (name: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head =
    field('con_id', String(conId)) +
    field('text', text) +
    field('temp_id', String(tempId)) +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files[]"; filename="item.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), photo, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
}
