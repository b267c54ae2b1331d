/**
 * Where a chat message's uploaded files live: a folder (src/files/local-folder.ts), a WordPress
 * site's uploads folder (the same, rooted there), or an S3-compatible bucket. Keys are relative,
 * `/`-separated paths (`chat/ab/abcdef….jpg`); names are content-addressed, so a key's bytes never
 * change and any reader may cache them for good.
 */
import type { Readable } from 'node:stream';

/** A byte range, both ends included (as HTTP's `Range: bytes=start-end`). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredFile {
  body: Readable;
  /** The whole file's size, whatever the range. */
  size: number;
  /** As given to put, when the backend keeps it (a folder does not: the key's extension says it). */
  contentType?: string;
}

export interface StoredKey {
  key: string;
  size: number;
  /** When it was written, epoch ms: the orphan sweep spares files younger than its grace period. */
  modifiedAt: number;
}

export interface FileStorage {
  /**
   * Stores the bytes under `key`, atomically: a reader (and the sweep) sees the whole file or
   * nothing, and a crash mid-write leaves at most an unnamed leftover the sweep removes. Writing
   * a key that exists is harmless (same content, same name).
   */
  put(key: string, body: Readable | Buffer, contentType: string): Promise<void>;
  /** The file, or the range of it; undefined when no such key. */
  get(key: string, range?: ByteRange): Promise<StoredFile | undefined>;
  /** Removes the key; no error when it is absent. Refuses a key Souk did not make (keys.ts, isSoukKey). */
  delete(key: string): Promise<void>;
  /**
   * Every key under Souk's own `chat/` (with the leftovers of its interrupted writes, which the
   * sweep removes), in no order; never what else the folder or the bucket holds.
   */
  list(): AsyncIterable<StoredKey>;
  /** The address a client fetches the key at. */
  url(key: string): string;
  /** The key an address of this storage names; undefined for any other address. */
  keyOf(url: string): string | undefined;
}

/** An S3-compatible bucket (FILES_S3_URL, read by config.ts's parseS3Url; store/files/s3.ts uses it). */
export interface S3Bucket {
  /** `https://host:port` (or `http://` with `tls=false`). */
  endpoint: string;
  bucket: string;
  /** Keys are stored under it (`prefix/chat/...`); '' for the bucket's root. */
  prefix: string;
  region: string;
  /** From the URL's user and password; absent, the AWS SDK's own chain (AWS_ACCESS_KEY_ID, a role, ...). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** `host/bucket/key` addresses (most S3-compatible servers) rather than `bucket.host/key` (AWS's default). */
  forcePathStyle: boolean;
  /**
   * `when_supported`: every upload carries a CRC32 the server checks (the AWS SDK's default; a
   * stream goes `aws-chunked`, with the checksum after the bytes); `when_required`: only where S3
   * demands one, for servers that do not know flexible checksums.
   */
  checksums: 'when_supported' | 'when_required';
}
