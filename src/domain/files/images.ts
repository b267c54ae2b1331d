/**
 * An uploaded image, re-encoded: the orientation applied, every piece of metadata left out (EXIF
 * with its GPS position, XMP, IPTC, comments; libvips writes none unless asked), at most
 * `maxPx` on its longest side, in its own format; and a thumbnail. The header's size is checked
 * before any pixel is decoded (`limitInputPixels`), and the work is timed out, so a decompression
 * bomb is refused at the cost of reading its header. Images are re-encoded a few at a time, and
 * only so many wait their turn: beyond, an image is refused at once (ImagesBusy) rather than left
 * to wait behind one sender's many.
 */
import type { Sharp } from 'sharp';

type SharpModule = (typeof import('sharp'))['default'];
let loaded: Promise<SharpModule> | undefined;
/** sharp (libvips) is loaded with the first image, not with every process that could receive one. */
export function loadImageCodec(): Promise<SharpModule> {
  return (loaded ??= import('sharp').then(({ default: sharp }) => {
    // libvips's operation cache would keep decoded images after their request: memory stays per request.
    sharp.cache(false);
    // One libvips thread per image: FILES_IMAGE_CONCURRENCY images at once use that many cores, and each
    // thread's buffers count in the process's memory.
    sharp.concurrency(1);
    return sharp;
  }));
}

export interface ImageLimits {
  maxPx: number;
  thumbnailPx: number;
  maxPixels: number;
  timeoutS: number;
  concurrency: number;
  /** Images that may wait for a turn, beyond the `concurrency` being re-encoded. */
  queue: number;
}

/** Thrown when more images wait for their turn than `ImageLimits.queue`: nothing of the image was read. */
export class ImagesBusy extends Error {
  constructor() {
    super('too many images wait to be re-encoded');
  }
}

export interface ReencodedImage {
  bytes: Buffer;
  width: number;
  height: number;
  thumbnail: Buffer;
}

export type ImageFormat = 'jpeg' | 'png' | 'webp';

/** At most `size` jobs at once; at most `queue` others wait, in order; more are refused (ImagesBusy). */
class Turns {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(
    private readonly size: number,
    private readonly queue: number,
  ) {}
  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.running < this.size) this.running++;
    else if (this.waiting.length >= this.queue) throw new ImagesBusy();
    // A finished job hands its turn over: `running` stays, so no newcomer passes the waiting.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/** One per set of limits in force (a process has one; tests start servers with others). */
const turns = new Map<string, Turns>();

function encode(image: Sharp, format: ImageFormat): Sharp {
  if (format === 'png') return image.png({ compressionLevel: 6 });
  if (format === 'webp') return image.webp({ quality: 85 });
  return image.jpeg({ quality: 85 });
}

/** Re-encodes the image at `path`; throws when it cannot be read as one within the limits. */
export async function reencodeImage(path: string, format: ImageFormat, limits: ImageLimits): Promise<ReencodedImage> {
  const key = `${limits.concurrency}/${limits.queue}`;
  let queue = turns.get(key);
  if (!queue) turns.set(key, (queue = new Turns(limits.concurrency, limits.queue)));
  const sharp = await loadImageCodec();
  return queue.run(async () => {
    // Sequential: the decoder streams rows through the resize instead of holding the whole picture.
    const open = () => sharp(path, { limitInputPixels: limits.maxPixels, failOn: 'error', animated: false, sequentialRead: true });
    const { data, info } = await encode(
      open()
        .rotate()
        .resize({ width: limits.maxPx, height: limits.maxPx, fit: 'inside', withoutEnlargement: true })
        .timeout({ seconds: limits.timeoutS }),
      format,
    ).toBuffer({ resolveWithObject: true });
    // From the re-encoded image: smaller to decode, already upright.
    const thumbnail = await encode(
      sharp(data, { failOn: 'error' })
        .resize({ width: limits.thumbnailPx, height: limits.thumbnailPx, fit: 'inside', withoutEnlargement: true })
        .timeout({ seconds: limits.timeoutS }),
      format,
    ).toBuffer();
    return { bytes: data, width: info.width, height: info.height, thumbnail };
  });
}
