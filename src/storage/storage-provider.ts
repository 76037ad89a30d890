/**
 * The storage providers a server has (`[storage]`, `[[storage.providers]]`), as the region engine
 * uses them: each gives local files of its objects, since DuckDB reads local files only (DESIGN.md
 * "Object storage and cache"). File storage's objects are local files already; an object store's
 * are copies in its local file cache (`file-cache.ts`): new files are written there, uploaded and
 * kept (write-through), and a read of a file not cached downloads it first.
 */
import { statSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { Logger } from '../common/logging.js';
import type { StorageOptions } from '../config/options.js';
import { createObjectStore, storageProviders } from './create-object-store.js';
import { FileCache, type FileCacheStats } from './file-cache.js';
import type { ObjectStore } from './object-store.js';
import { OpendalObjectStore } from './opendal-object-store.js';

/** A local file of an object, valid until `release`. */
export interface LocalFile {
  readonly path: string;
  /** Idempotent. */
  release(): void;
}

export interface StorageProvider {
  /** The name tables choose it by (`storage = '<name>'`). */
  readonly name: string;
  /** Where the objects live (manifests are read and written here directly). */
  readonly store: ObjectStore;
  /** The local directories its files are read from (for DuckDB's sandbox). */
  readonly localDirs: readonly string[];
  /**
   * A local file of the object, whose size the manifest records as `size`: checked, so that a
   * missing or truncated object is an error naming it. Pinned (not evicted) until released. A cache
   * miss downloads the object; `signal` stops this caller's wait.
   */
  open(objectPath: string, size: number, signal?: AbortSignal): Promise<LocalFile>;
  /** Where a new object's file is written before `publish` (its directory exists). */
  newFile(objectPath: string): Promise<string>;
  /** Makes the file written at `localFile` the object (uploads it and keeps it cached). */
  publish(objectPath: string, localFile: string): Promise<void>;
  /** Removes a file written by `newFile` that will not be published. */
  discard(localFile: string): Promise<void>;
  delete(objectPath: string): Promise<void>;
  /** Deletes every object under the prefix (a directory ending with `/`). */
  deleteAll(prefix: string): Promise<void>;
  /** The file cache's figures; undefined for File storage. */
  cacheStats(): FileCacheStats | undefined;
  close(): Promise<void>;
}

function missing(objectPath: string, store: ObjectStore, what: string): TsdbError {
  return new TsdbError(StatusCode.StorageUnavailable, `object ${objectPath} in ${store.description} ${what}`);
}

/** File storage: objects are files under the store's root, read in place. */
export class FileStorageProvider implements StorageProvider {
  readonly localDirs: readonly string[];

  constructor(
    readonly name: string,
    readonly store: ObjectStore,
  ) {
    if (store.localRoot === undefined) throw new TypeError(`storage provider ${name}: ${store.description} has no local files`);
    this.localDirs = [store.localRoot];
  }

  private local(objectPath: string): string {
    return this.store.localPath(objectPath)!;
  }

  async open(objectPath: string, size: number): Promise<LocalFile> {
    const path = this.local(objectPath);
    let actual: number;
    try {
      // Synchronous: a local file's metadata is a few microseconds away, where fs/promises' stat
      // costs a round trip through the thread pool on every scan of every file (~0.3 ms of a point
      // query's main thread under load).
      actual = statSync(path).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw missing(objectPath, this.store, 'is missing (the manifest records it)');
      throw new TsdbError(StatusCode.StorageUnavailable, `object ${objectPath} in ${this.store.description}: ${(err as Error).message}`);
    }
    if (actual !== size) throw missing(objectPath, this.store, `has ${actual} bytes, the manifest records ${size} (truncated or replaced)`);
    return { path, release: () => {} };
  }

  async newFile(objectPath: string): Promise<string> {
    const path = this.local(objectPath);
    await mkdir(dirname(path), { recursive: true });
    return path;
  }

  async publish(): Promise<void> {}

  async discard(localFile: string): Promise<void> {
    await rm(localFile, { force: true });
  }

  delete(objectPath: string): Promise<void> {
    return this.store.delete(objectPath);
  }

  deleteAll(prefix: string): Promise<void> {
    return this.store.deleteAll(prefix);
  }

  cacheStats(): undefined {
    return undefined;
  }

  async close(): Promise<void> {}
}

/** An object store (S3, Azblob, Gcs, Oss) read and written through its local file cache. */
export class CachedStorageProvider implements StorageProvider {
  readonly localDirs: readonly string[];
  private staged = 0;

  constructor(
    readonly name: string,
    readonly store: ObjectStore,
    private readonly cache: FileCache,
    /** `sst_write_buffer_size`: uploads go in parts of this size. */
    private readonly partSize: number,
  ) {
    this.localDirs = [cache.dir];
  }

  async open(objectPath: string, size: number, signal?: AbortSignal): Promise<LocalFile> {
    try {
      return await this.cache.pin(objectPath, size, signal);
    } catch (err) {
      // Stopped (a deadline, a cancel) while waiting for the store: say what it waited for.
      if (signal?.aborted === true && err === signal.reason && err instanceof TsdbError) {
        throw new TsdbError(err.code, `${err.message} (while waiting for ${objectPath} from ${this.store.description})`);
      }
      throw err;
    }
  }

  async newFile(objectPath: string): Promise<string> {
    const path = this.cache.stagingPath(`${++this.staged}-${objectPath.slice(objectPath.lastIndexOf('/') + 1)}`);
    await mkdir(dirname(path), { recursive: true });
    return path;
  }

  async publish(objectPath: string, localFile: string): Promise<void> {
    await this.store.upload(objectPath, localFile, this.partSize);
    await this.cache.add(objectPath, localFile);
  }

  async discard(localFile: string): Promise<void> {
    await rm(localFile, { force: true });
  }

  async delete(objectPath: string): Promise<void> {
    await this.store.delete(objectPath);
    await this.cache.remove(objectPath);
  }

  async deleteAll(prefix: string): Promise<void> {
    await this.store.deleteAll(prefix);
    await this.cache.removeAll(prefix);
  }

  cacheStats(): FileCacheStats {
    return this.cache.stats();
  }

  close(): Promise<void> {
    return this.cache.close();
  }
}

/** The providers of a server by name, and the default one (`[storage]`). */
export class StorageProviders {
  constructor(
    readonly defaultName: string,
    private readonly byName: ReadonlyMap<string, StorageProvider>,
  ) {
    if (!byName.has(defaultName)) throw new TypeError(`the default storage provider ${defaultName} is not among the providers`);
  }

  static single(provider: StorageProvider): StorageProviders {
    return new StorageProviders(provider.name, new Map([[provider.name, provider]]));
  }

  /** The provider named `name` (the default one when undefined); an unknown name is the user's mistake. */
  get(name?: string): StorageProvider {
    const p = this.byName.get(name ?? this.defaultName);
    if (p === undefined) throw new TsdbError(StatusCode.InvalidArguments, `Object store not found: ${name} (configured: ${this.names().join(', ')})`);
    return p;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  all(): StorageProvider[] {
    return [...this.byName.values()];
  }

  /** Every directory a provider's local files are read from. */
  localDirs(): string[] {
    return [...new Set(this.all().flatMap((p) => p.localDirs))];
  }

  private closed = false;

  /** Closes every provider (once). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.all()) await p.close();
  }
}

/** A provider name as a directory name: letters, digits, `_` and `-` kept, anything else %-escaped. */
export function cacheDirName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/**
 * Opens every configured provider: File stores (their interrupted writes cleaned up), object
 * stores with a file cache each in `{cache_path}/{name}` of `cache_capacity` bytes.
 */
export async function openStorageProviders(storage: StorageOptions, opts: { readonly partSize: number; readonly logger: Logger }): Promise<StorageProviders> {
  const byName = new Map<string, StorageProvider>();
  const cleaned = new Set<string>();
  try {
    for (const [name, options] of storageProviders(storage)) {
      const store = createObjectStore(options);
      if (store.localRoot !== undefined) {
        if (store instanceof OpendalObjectStore && !cleaned.has(store.localRoot)) {
          cleaned.add(store.localRoot);
          const removed = await store.removeStrayTemporaryFiles();
          if (removed > 0) opts.logger.info({ files: removed, store: store.description }, 'removed temporary files of writes a crash interrupted');
        }
        byName.set(name, new FileStorageProvider(name, store));
        continue;
      }
      const dir = join(options.cache_path ?? join(storage.data_home, 'object_cache'), cacheDirName(name));
      const capacity = options.cache_capacity ?? 256 * 1024 * 1024;
      const cache = await FileCache.open({ dir, capacity, store, logger: opts.logger.child({ provider: name }) });
      byName.set(name, new CachedStorageProvider(name, store, cache, opts.partSize));
    }
  } catch (err) {
    for (const p of byName.values()) await p.close().catch(() => {});
    throw err;
  }
  return new StorageProviders(storage.type, byName);
}
