/**
 * FileStorage in an S3-compatible bucket (FILES_S3_URL), for instances on several machines: AWS S3
 * or any server that speaks its API, through the AWS SDK v3. An object appears whole or not at all
 * (S3's PUT, and a multipart upload only once completed), so `put` is atomic as the port asks; an
 * upload cut off midway leaves at most an unfinished multipart upload, invisible to readers and to
 * `list`, which the bucket's lifecycle rule removes (docs/files-s3.md).
 */
import { stat } from 'node:fs/promises';
import { ReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { CHAT_PREFIX, digestOfKey } from '../../domain/files/keys.js';
import type { ByteRange, FileStorage, S3Bucket, StoredFile, StoredKey } from '../../domain/files/storage.js';
import { isSafeKey } from './local-folder.js';

/** A part of a multipart upload (S3's least but for the last): what one upload holds in memory. */
const PART_BYTES = 5 * 1024 * 1024;

const isMissing = (err: unknown) =>
  err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata.httpStatusCode === 404);

/** `bytes 0-9/1234` → 1234. */
const totalOf = (contentRange: string | undefined) => Number(/\/(\d+)$/.exec(contentRange ?? '')?.[1] ?? NaN);

export class S3Storage implements FileStorage {
  readonly client: S3Client;
  private readonly base: string;
  private readonly prefix: string;

  /** `baseUrl`: where clients fetch a key (FILES_S3_PUBLIC_URL, or Souk's own `/files`, which reads the bucket). */
  constructor(
    private readonly bucket: S3Bucket,
    baseUrl: string,
    timeouts: { connectMs: number; requestMs: number } = { connectMs: 3_000, requestMs: 30_000 },
  ) {
    this.client = new S3Client({
      endpoint: bucket.endpoint,
      region: bucket.region,
      forcePathStyle: bucket.forcePathStyle,
      ...(bucket.credentials ? { credentials: bucket.credentials } : {}),
      requestHandler: { connectionTimeout: timeouts.connectMs, requestTimeout: timeouts.requestMs },
      maxAttempts: 3,
      requestChecksumCalculation: bucket.checksums === 'when_required' ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED',
      responseChecksumValidation: bucket.checksums === 'when_required' ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED',
    });
    this.base = baseUrl.replace(/\/+$/, '');
    this.prefix = bucket.prefix === '' ? '' : `${bucket.prefix.replace(/\/+$/, '')}/`;
  }

  private objectKey(key: string): string {
    if (!isSafeKey(key)) throw new Error(`not a storage key: ${JSON.stringify(key)}`);
    return this.prefix + key;
  }

  /** Whether the bucket answers with these credentials: at start, so that a wrong setting stops Souk at once. */
  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket.bucket }));
    } catch (err) {
      const status = err instanceof S3ServiceException ? ` (HTTP ${err.$metadata.httpStatusCode ?? '?'})` : '';
      throw new Error(
        `FILES_S3_URL: the bucket ${this.bucket.bucket} at ${this.bucket.endpoint} cannot be used${status}: ${(err as Error).name}`,
        { cause: err },
      );
    }
  }

  async put(key: string, body: Readable | Buffer, contentType: string): Promise<void> {
    const target = { Bucket: this.bucket.bucket, Key: this.objectKey(key), ContentType: contentType };
    if (Buffer.isBuffer(body)) {
      await this.client.send(new PutObjectCommand({ ...target, Body: body, ContentLength: body.length }));
      return;
    }
    // A file read from disk (an upload's temporary file): its length is known, one streamed PUT.
    const file = body as ReadStream & { start?: number; end?: number };
    if (body instanceof ReadStream && typeof file.path === 'string' && file.start === undefined && file.end === Infinity) {
      const { size } = await stat(file.path);
      await this.client.send(new PutObjectCommand({ ...target, Body: body, ContentLength: size }));
      return;
    }
    // Any other stream: a multipart upload, a part at a time; parts of a failed one are aborted.
    await new Upload({ client: this.client, params: { ...target, Body: body }, partSize: PART_BYTES, queueSize: 1 }).done();
  }

  async get(key: string, range?: ByteRange): Promise<StoredFile | undefined> {
    if (!isSafeKey(key)) return undefined;
    const Key = this.objectKey(key);
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket.bucket, Key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      const size = range && object.ContentRange ? totalOf(object.ContentRange) : Number(object.ContentLength ?? NaN);
      return { body: object.Body as Readable, size, ...(object.ContentType ? { contentType: object.ContentType } : {}) };
    } catch (err) {
      if (isMissing(err)) return undefined;
      // A range past the end: nothing of it, as a file read past its end gives.
      if (range && err instanceof S3ServiceException && err.$metadata.httpStatusCode === 416) {
        const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket.bucket, Key }));
        return { body: Readable.from([]), size: Number(head.ContentLength ?? 0) };
      }
      throw err;
    }
  }

  /** Only a key Souk made: the bucket, even its prefix, may hold other things (backups, invoices). */
  async delete(key: string): Promise<void> {
    if (digestOfKey(key) === undefined) throw new Error(`not a key of Souk's: ${JSON.stringify(key)}`);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket.bucket, Key: this.objectKey(key) }));
  }

  /** The keys under the prefix's `chat/`: the rest of the bucket is not Souk's. */
  async *list(): AsyncIterable<StoredKey> {
    let ContinuationToken: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket.bucket, Prefix: this.prefix + CHAT_PREFIX, ContinuationToken }),
      );
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        yield {
          key: object.Key.slice(this.prefix.length),
          size: Number(object.Size ?? 0),
          modifiedAt: object.LastModified?.getTime() ?? 0,
        };
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  url(key: string): string {
    return `${this.base}/${key}`;
  }

  keyOf(url: string): string | undefined {
    if (!url.startsWith(`${this.base}/`)) return undefined;
    const key = url.slice(this.base.length + 1);
    return isSafeKey(key) ? key : undefined;
  }

  close(): void {
    this.client.destroy();
  }
}
