/**
 * The object store on Apache OpenDAL (DESIGN.md D4): one class for every provider, since OpenDAL
 * gives them all one API; a provider is an OpenDAL scheme (`fs`, `s3`, `oss`, `azblob`, `gcs`) and
 * that scheme's config keys.
 */
import { statSync } from 'node:fs';
import { open, readdir, rm, type FileHandle } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { Operator, RetryLayer } from 'opendal';
import { StatusCode } from '../common/error/status-code.js';
import { errorMessage, TsdbError } from '../common/error/tsdb-error.js';
import { checkObjectPath, type PathKind } from './object-path.js';
import { ObjectNotFoundError, type ObjectEntry, type ObjectStore } from './object-store.js';

export interface OpendalStoreOptions {
  /** OpenDAL scheme: `fs`, `s3`, `oss`, `azblob`, `gcs`. */
  readonly scheme: string;
  /** The scheme's config keys, named as OpenDAL names them (`bucket`, `access_key_secret`…). */
  readonly config: Readonly<Record<string, string>>;
  /** For messages, e.g. `S3(my-bucket/data)`. */
  readonly description: string;
  /**
   * Remote stores: how long one request (a stat, a part of an upload, a chunk of a download…) may
   * take before it fails with an error naming the store (default 30 s, as GreptimeDB's HTTP
   * client). OpenDAL's Node binding sets no timeout of its own, so a store that stops answering
   * would otherwise hold its caller forever.
   */
  readonly requestTimeoutMs?: number;
}

/** Remote stores: the default bound of one request. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Downloads read objects in chunks of this size, this many at once (range requests where the service has them). */
const DOWNLOAD_CHUNK = 8 * 1024 * 1024;
const DOWNLOAD_CONCURRENCY = 4;

/** The config keys whose values are secrets: never shown in a message. */
const SECRET_KEYS = ['secret_access_key', 'access_key_secret', 'account_key', 'sas_token', 'credential', 'token'];

/** Stats run at once when a listing lacks sizes (fs): enough to overlap, few enough for the pool. */
const STAT_CONCURRENCY = 16;

export class OpendalObjectStore implements ObjectStore {
  readonly description: string;
  private readonly op: Operator;
  /**
   * The same operator without the retry layer, for `holdsNoObject`: a NotFound answer is never
   * retried anyway, and after a failed request has used up its retries, asking again with
   * retries would only double the time to report an unreachable store.
   */
  private readonly probeOp: Operator;
  /** Absolute root directory for the fs scheme; undefined for remote stores. */
  readonly localRoot: string | undefined;
  /** Absolute directory of the fs scheme's temporary files. */
  private readonly tmpDir: string | undefined;
  /** Bound of one request to a remote store; undefined for fs. */
  private readonly timeoutMs: number | undefined;
  /** Secret values of the config, hidden from error messages. */
  private readonly secrets: string[];
  /**
   * Azure Blob with a SAS token: deleteAll deletes object by object, not in blob batch requests,
   * which Azure has refused with SAS tokens (and azurite answers with a 500).
   */
  private readonly deletesOneByOne: boolean;

  constructor(options: OpendalStoreOptions) {
    this.description = options.description;
    this.timeoutMs = options.scheme === 'fs' ? undefined : (options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
    this.secrets = SECRET_KEYS.map((k) => options.config[k]).filter((v): v is string => v !== undefined && v.length >= 4);
    this.deletesOneByOne = options.scheme === 'azblob' && options.config['sas_token'] !== undefined;
    this.localRoot = options.scheme === 'fs' ? resolve(options.config['root'] ?? '.') : undefined;
    this.tmpDir = options.scheme === 'fs' && options.config['atomic_write_dir'] !== undefined ? resolve(options.config['atomic_write_dir']) : undefined;
    if (options.scheme === 'fs' && options.config['atomic_write_dir'] === undefined) {
      // Without it OpenDAL writes in place, and a crash leaves a partial object: see `fs`.
      throw new TypeError(`object store ${this.description}: the fs scheme needs atomic_write_dir; use OpendalObjectStore.fs`);
    }
    try {
      const op = new Operator(options.scheme, { ...options.config });
      // Remote stores retry requests that fail with a temporary error (throttling, 5xx, a
      // dropped connection), as GreptimeDB's do; NotFound and other permanent errors are not retried.
      // Backoff 0.2 s doubling, 3 retries (about 1.4 s in all): a store that is down fails a
      // request within seconds, and the engine retries flushes with its own backoff above this.
      const retry = new RetryLayer();
      retry.maxTimes = 3;
      retry.minDelay = 200;
      retry.maxDelay = 2000;
      retry.jitter = true;
      this.op = options.scheme === 'fs' ? op : op.layer(retry.build());
      this.probeOp = op;
    } catch (err) {
      throw new TsdbError(StatusCode.StorageUnavailable, `cannot open object store ${this.description}: ${errorMessage(err)}`, {
        cause: err,
      });
    }
  }

  /**
   * A store on the local file system under `root`. Every write goes to a temporary file in
   * `atomicWriteDir` and is renamed onto its final name once complete: OpenDAL's fs writer
   * (`atomic_write_dir`) writes the temporary file, flushes and fsyncs it, then renames it. A rename
   * within one file system is atomic, so a reader, or a restart after a crash at any point of a
   * write, finds the old object or the whole new one, never a part. (The directory is not fsynced
   * after the rename: a power loss just after a write may bring back the old object.) A crash
   * leaves at most a stray temporary file in `atomicWriteDir`, never under the root.
   *
   * `atomicWriteDir` must lie outside `root` (else listings would show temporary files) and on the
   * same file system (else the rename fails); both are checked.
   */
  static fs(root: string, atomicWriteDir: string): OpendalObjectStore {
    const absRoot = resolve(root);
    const absTmp = resolve(atomicWriteDir);
    const description = `File(${absRoot})`;
    if (isWithin(absTmp, absRoot) || isWithin(absRoot, absTmp)) {
      throw new TsdbError(
        StatusCode.InvalidArguments,
        `object store ${description}: the temporary directory ${absTmp} must be outside the root, and the root outside it`,
      );
    }
    // OpenDAL creates both directories.
    const store = new OpendalObjectStore({ scheme: 'fs', config: { root: absRoot, atomic_write_dir: absTmp }, description });
    if (statSync(absRoot).dev !== statSync(absTmp).dev) {
      throw new TsdbError(
        StatusCode.InvalidArguments,
        `object store ${description}: the temporary directory ${absTmp} is on another file system, so writes could not be renamed into place atomically`,
      );
    }
    return store;
  }

  /**
   * Deletes the temporary files a crash left in the fs store's `atomicWriteDir` (writes that never
   * completed; their objects were never replaced). Call it only while no write runs — at startup,
   * under the data directory's lock. Returns the number of files removed (0 for remote stores).
   */
  async removeStrayTemporaryFiles(): Promise<number> {
    if (this.tmpDir === undefined) return 0;
    let names: string[];
    try {
      names = await readdir(this.tmpDir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw this.failure('clean', this.tmpDir, err);
    }
    for (const name of names) await rm(join(this.tmpDir, name), { recursive: true, force: true });
    return names.length;
  }

  async read(path: string): Promise<Uint8Array> {
    this.check(path, 'object');
    try {
      return await this.bounded(this.op.read(path), 'read', path);
    } catch (err) {
      if (mayBeNotFound(err) && (await this.holdsNoObject(path))) throw new ObjectNotFoundError(path, this.description);
      throw this.failure('read', path, err);
    }
  }

  async write(path: string, data: Uint8Array): Promise<void> {
    this.check(path, 'object');
    try {
      // One request for remote stores: a PUT (S3, Oss, Gcs) or a block blob upload (Azblob)
      // replaces an object at once. For fs, see `OpendalObjectStore.fs`.
      await this.bounded(this.op.write(path, Buffer.from(data.buffer, data.byteOffset, data.byteLength)), 'write', path);
    } catch (err) {
      throw this.failure('write', path, err);
    }
  }

  async upload(path: string, localFile: string, partSize: number): Promise<number> {
    this.check(path, 'object');
    if (!Number.isInteger(partSize) || partSize < 1) throw new RangeError(`upload part size must be a positive integer, got ${partSize}`);
    let parts = 0;
    let file: FileHandle | undefined;
    try {
      file = await open(localFile, 'r');
      const writer = await this.bounded(this.op.writer(path, { chunk: BigInt(partSize) }), 'upload', path);
      for (;;) {
        // A fresh buffer per part: the writer may still hold the previous one.
        const part = Buffer.allocUnsafe(partSize);
        let filled = 0;
        while (filled < partSize) {
          const { bytesRead } = await file.read(part, filled, partSize - filled, null);
          if (bytesRead === 0) break;
          filled += bytesRead;
        }
        if (filled === 0) break;
        await this.bounded(writer.write(filled === partSize ? part : part.subarray(0, filled)), 'upload', path);
        parts++;
        if (filled < partSize) break;
      }
      await this.bounded(writer.close(), 'upload', path);
    } catch (err) {
      throw this.failure('upload', path, err);
    } finally {
      await file?.close();
    }
    return parts;
  }

  async download(path: string, localFile: string, signal?: AbortSignal): Promise<number> {
    this.check(path, 'object');
    let file: FileHandle | undefined;
    let written = 0;
    try {
      signal?.throwIfAborted();
      const reader = await this.bounded(this.op.reader(path, { chunk: DOWNLOAD_CHUNK, concurrent: DOWNLOAD_CONCURRENCY }), 'download', path, signal);
      file = await local(() => open(localFile, 'w'));
      for (;;) {
        // A fresh buffer per read: OpenDAL fills it on its own threads.
        const buf = Buffer.allocUnsafe(DOWNLOAD_CHUNK);
        const n = Number(await this.bounded(reader.read(buf), 'download', path, signal));
        if (n === 0) break;
        let off = 0;
        while (off < n) off += (await local(() => file!.write(buf, off, n - off))).bytesWritten;
        written += n;
      }
    } catch (err) {
      if (signal?.aborted === true && err === signal.reason) throw err;
      if (err instanceof LocalFileError) {
        throw new TsdbError(StatusCode.StorageUnavailable, `download of ${path} from ${this.description}: cannot write the local file ${localFile}: ${err.message}`);
      }
      if (err instanceof TsdbError) throw err;
      if (mayBeNotFound(err) && (await this.holdsNoObject(path))) throw new ObjectNotFoundError(path, this.description);
      throw this.failure('download', path, err);
    } finally {
      await file?.close();
    }
    return written;
  }

  async stat(path: string): Promise<ObjectEntry | undefined> {
    this.check(path, 'object');
    let meta;
    try {
      meta = await this.bounded(this.op.stat(path), 'stat', path);
    } catch (err) {
      if (mayBeNotFound(err) && (await this.holdsNoObject(path))) return undefined;
      throw this.failure('stat', path, err);
    }
    if (!meta.isFile()) return undefined;
    return { path, size: Number(meta.contentLength ?? 0n) };
  }

  async list(prefix: string): Promise<ObjectEntry[]> {
    this.check(prefix, 'prefix');
    // List the directory the prefix is in and filter, so that `a/` never matches `ab/x` and a
    // prefix ending inside a name (`sst/00`) works the same on every service.
    const dir = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    let entries;
    try {
      entries = await this.bounded(this.op.list(dir, { recursive: true }), 'list', prefix);
    } catch (err) {
      throw this.failure('list', prefix, err);
    }
    const files = entries.filter((e) => e.path().startsWith(prefix) && !e.path().endsWith('/') && e.metadata().isFile());
    let found: ObjectEntry[];
    if (this.localRoot === undefined) {
      found = files.map((e) => ({ path: e.path(), size: Number(e.metadata().contentLength ?? 0n) }));
    } else {
      // The fs service lists names only (every size reads 0), so each file is stat'ed; a file
      // deleted meanwhile is left out.
      const stats = await mapLimit(files, STAT_CONCURRENCY, (e) => this.stat(e.path()));
      found = stats.filter((s) => s !== undefined);
    }
    return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async delete(path: string): Promise<void> {
    this.check(path, 'object');
    try {
      await this.bounded(this.op.delete(path), 'delete', path); // OpenDAL treats a missing object as deleted
    } catch (err) {
      throw this.failure('delete', path, err);
    }
  }

  async deleteAll(prefix: string): Promise<void> {
    if (prefix === '') {
      throw new TsdbError(StatusCode.InvalidArguments, `deleteAll in ${this.description}: refusing to delete the whole store (empty prefix)`);
    }
    this.check(prefix, 'directory');
    if (this.deletesOneByOne) {
      const objects = await this.list(prefix);
      await mapLimit(objects, STAT_CONCURRENCY, (o) => this.delete(o.path));
      return;
    }
    try {
      // Lists recursively and deletes (in batches where the service can); removes the
      // directories too on fs.
      await this.bounded(this.op.removeAll(prefix), 'delete everything under', prefix);
    } catch (err) {
      throw this.failure('delete everything under', prefix, err);
    }
  }

  localPath(path: string): string | undefined {
    this.check(path, 'object');
    return this.localRoot === undefined ? undefined : join(this.localRoot, path);
  }

  private check(path: string, kind: PathKind): void {
    checkObjectPath(path, kind, this.description);
  }

  /**
   * Whether an operation on `path` failed because no object is there. OpenDAL's Node binding
   * gives every error the same code (`GenericFailure`), with the error kind only inside the
   * message; rather than parse that text, this asks OpenDAL, whose `exists` maps its NotFound
   * kind to false. A directory of the fs service is no object either (remote stores have none).
   * When the question itself fails, the answer is no, and the caller reports its own error.
   */
  private async holdsNoObject(path: string): Promise<boolean> {
    try {
      if (!(await this.bounded(this.probeOp.exists(path), 'stat', path))) return true;
      return (await this.bounded(this.probeOp.stat(path), 'stat', path)).isDirectory();
    } catch {
      return false;
    }
  }

  /**
   * `p`, failing with an error naming the store when a remote store takes longer than the request
   * timeout, or with `signal`'s reason when it aborts first. (The request itself cannot be
   * cancelled through the Node binding: it ends on its own, and its result is dropped.)
   */
  private bounded<T>(p: Promise<T>, action: string, path: string, signal?: AbortSignal): Promise<T> {
    if (this.timeoutMs === undefined && signal === undefined) return p;
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => finish(() => reject(signal!.reason));
      const finish = (settle: () => void) => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        settle();
      };
      if (this.timeoutMs !== undefined) {
        timer = setTimeout(() => {
          const shown = path === '' ? '/' : path;
          finish(() => reject(new TsdbError(StatusCode.StorageUnavailable, `${action} ${shown} in ${this.description}: the store did not answer within ${this.timeoutMs} ms`)));
        }, this.timeoutMs);
      }
      if (signal !== undefined) {
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
      }
      p.then(
        (v) => finish(() => resolve(v)),
        (e: unknown) => finish(() => reject(e)),
      );
    });
  }

  private failure(action: string, path: string, err: unknown): TsdbError {
    if (err instanceof TsdbError && err.message.includes(this.description)) return err;
    const shown = path === '' ? '/' : path;
    // No `cause`: OpenDAL's error may carry a request URL with a signature, and causes are logged.
    return new TsdbError(StatusCode.StorageUnavailable, `${action} ${shown} in ${this.description}: ${this.redact(errorMessage(err))}`);
  }

  /** The message without the config's secrets or a URL's signature (`sig=`, `Signature=`, `X-Amz-Signature=`…). */
  private redact(message: string): string {
    let out = message;
    for (const secret of this.secrets) out = out.split(secret).join('******');
    return out.replace(/((?:^|[?&\s])(?:sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|token|access_token)=)[^&\s"']+/gi, '$1******');
  }
}

/** A failure of the local file a download writes (a full disk…), not of the store. */
class LocalFileError extends Error {}

async function local<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new LocalFileError(errorMessage(err));
  }
}

/**
 * Whether a failure may be a missing object, worth asking the store (`holdsNoObject`): OpenDAL
 * names its error kind first in the message (`NotFound (permanent) at read…`). A connection
 * refused or a timeout is not, and is not asked about (that would retry the failing store twice).
 * (A directory of the fs service is no object either.)
 */
function mayBeNotFound(err: unknown): boolean {
  return !(err instanceof TsdbError) && (/NotFound|not found|404|is a directory/i.test(errorMessage(err)));
}

/** Whether `path` is `dir` or inside it (both absolute). */
function isWithin(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel));
}

/** `items.map(fn)` with at most `limit` calls pending at once; results in order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
