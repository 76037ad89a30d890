/**
 * Where a region's files live (SSTs, manifests): one interface over every storage provider
 * (File, S3, Oss, Azblob, Gcs through OpenDAL, DESIGN.md D4). Paths are relative to the store's
 * root and use `/`.
 */

export interface ObjectEntry {
  /** Path relative to the store's root. */
  readonly path: string;
  readonly size: number;
}

export interface ObjectStore {
  /** Human description for messages, e.g. `File(/tmp/tsdb)` or `S3(bucket/root)`. */
  readonly description: string;
  /** The whole object; throws ObjectNotFoundError when it does not exist. */
  read(path: string): Promise<Uint8Array>;
  /** Writes the whole object; readers see either the old object or the new one, never a part. */
  write(path: string, data: Uint8Array): Promise<void>;
  /**
   * Copies local file `localFile` into the object, streamed in parts of `partSize` bytes (a
   * multipart upload where the service has one), so that at most one part is held in memory;
   * readers see the old object or the new one. Returns the number of parts sent.
   */
  upload(path: string, localFile: string, partSize: number): Promise<number>;
  /**
   * Copies the whole object into local file `localFile` (created or replaced), streamed so that
   * little of it is held in memory; returns the number of bytes written. Throws
   * ObjectNotFoundError when the object does not exist. `signal` stops it (the file is then
   * partial: the caller removes it).
   */
  download(path: string, localFile: string, signal?: AbortSignal): Promise<number>;
  /** Size of the object, or undefined when it does not exist. */
  stat(path: string): Promise<ObjectEntry | undefined>;
  /** Every object whose path starts with `prefix` (a directory ends with `/`), at any depth, sorted by path. */
  list(prefix: string): Promise<ObjectEntry[]>;
  /** Deletes the object; deleting a missing object is not an error. */
  delete(path: string): Promise<void>;
  /** Deletes every object under `prefix` (a directory ending with `/`). */
  deleteAll(prefix: string): Promise<void>;
  /**
   * For a store on the local file system: the absolute local path of an object (DuckDB reads
   * local files only). Undefined for remote stores, which go through the local cache.
   */
  localPath(path: string): string | undefined;
  /** For a store on the local file system: the absolute directory every `localPath` lies under; else undefined. */
  readonly localRoot: string | undefined;
}

export class ObjectNotFoundError extends Error {
  override readonly name = 'ObjectNotFoundError';
  constructor(readonly path: string, store: string) {
    super(`object not found: ${path} in ${store}`);
  }
}
