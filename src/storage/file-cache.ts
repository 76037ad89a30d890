/**
 * The local file cache of one object-storage provider (`cache_path`, `cache_capacity`): DuckDB reads
 * local files only, so every object a scan or a compaction reads is first brought here, and the
 * files a flush or a compaction writes are kept here as they are uploaded (write-through).
 *
 * Layout of `dir` (nothing else writes in it):
 * - `{objectPath}`: the copy of an object, whole and of the size the manifest records.
 * - `.partial/`: downloads in progress; one is renamed into place only once complete and its
 *   size verified. Emptied at open.
 * - `.staging/`: files being written by callers before `add`. Emptied at open.
 * - `.store`: the `description` of the store whose objects these are. A cache opened for another
 *   store is wiped, so that copies of another bucket are never served.
 *
 * The index lives in memory and is rebuilt at open from the directory tree: a copy's size is its
 * file's size, its recency its mtime (refreshed on every hit).
 *
 * Eviction is least-recently-used by bytes: after every add, completed download and release, the
 * least recently used copies that nothing pins are removed until the cached bytes fit in
 * `capacity`. A pinned copy is never removed. When the pinned copies alone exceed the capacity —
 * notably one file larger than the capacity — the cache holds more than its capacity for as long
 * as they stay pinned: such a file is downloaded and readable like any other (everything unpinned
 * is evicted to make room), and it is evicted at its last release.
 *
 * Concurrent pins of one object share one download; a caller's abort signal abandons only its
 * own wait, and a download that completes is kept even when every waiter has gone. Every change of
 * the file at one object's path (placing, removing) runs in order under a per-path lock, so that a
 * removal never takes the file of a newer copy. `close()` aborts the downloads in flight and waits
 * for them and for every pending file operation to end.
 *
 * Objects are immutable in tsdb (a file id is never reused): when a copy is replaced while pinned
 * (an `add` of an object already cached), the holders of the old pin read the new file, which
 * holds the same bytes.
 */
import { copyFile, mkdir, readdir, readFile, rename, rm, rmdir, stat, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { Logger } from '../common/logging.js';
import { KeyedMutex } from '../common/sync/keyed-mutex.js';
import { checkObjectPath } from './object-path.js';
import { ObjectNotFoundError, type ObjectStore } from './object-store.js';

export interface FileCacheOptions {
  /** This provider's cache directory (created if missing); nothing else writes in it. */
  readonly dir: string;
  /** Most bytes of cached files kept once nothing pins them (cache_capacity). */
  readonly capacity: number;
  /** The remote store whose objects are cached. */
  readonly store: ObjectStore;
  readonly logger: Logger;
}

export interface CachedFile {
  /** Absolute local path of the object's copy; stays valid until release(). */
  readonly path: string;
  /** Unpins (idempotent). */
  release(): void;
}

export interface FileCacheStats {
  /** Copies on disk (pinned copies of removed objects included, until their last release). */
  readonly files: number;
  /** Their bytes. */
  readonly bytes: number;
  readonly capacity: number;
  /** Copies pinned now. */
  readonly pinned: number;
  /** Pins served by a copy already cached. */
  readonly hits: number;
  /** Pins that waited for a download (one they started or one already in flight). */
  readonly misses: number;
  /** Downloads started. */
  readonly downloads: number;
  /** Bytes of the downloads that completed with the expected size. */
  readonly downloadedBytes: number;
  /** Copies removed to fit the capacity (not those removed because their object was deleted). */
  readonly evictions: number;
  readonly evictedBytes: number;
}

/** Names at the top of the cache directory that belong to the cache itself, never to an object. */
const PARTIAL = '.partial';
const STAGING = '.staging';
const MARKER = '.store';
const RESERVED = new Set([PARTIAL, STAGING, MARKER]);

/** How often placing a file is retried when its parent directory vanished meanwhile (a prune). */
const PLACE_ATTEMPTS = 10;

/** One copy of an object on disk. */
interface Entry {
  readonly objectPath: string;
  readonly size: number;
  pins: number;
  /**
   * live: in the index, served to pins. doomed: its object was deleted while it was pinned; the
   * file goes at the last release. gone: no longer in the cache (evicted, removed or replaced).
   */
  state: 'live' | 'doomed' | 'gone';
  /** The copy that replaced this one at its path while it was pinned; its pins moved there. */
  successor?: Entry;
}

interface Waiter {
  readonly size: number;
  resolve(file: CachedFile): void;
  reject(err: unknown): void;
}

/** A download in flight, shared by every pin of its object meanwhile. */
interface Download {
  readonly objectPath: string;
  /** The size expected by the pin that started it. */
  readonly size: number;
  readonly waiters: Set<Waiter>;
  readonly controller: AbortController;
  /** The object was deleted meanwhile: the copy is kept only for the waiters still there. */
  dropped: boolean;
  done: Promise<void>;
}

class Pin implements CachedFile {
  private released = false;

  constructor(
    readonly path: string,
    private readonly entry: Entry,
    private readonly onRelease: (entry: Entry) => void,
  ) {}

  release(): void {
    if (this.released) return;
    this.released = true;
    this.onRelease(this.entry);
  }
}

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class FileCache {
  readonly dir: string;
  private readonly capacity: number;
  private readonly store: ObjectStore;
  private readonly logger: Logger;
  private readonly partialDir: string;
  private readonly stagingDir: string;
  /** Live copies, least recently used first. */
  private readonly entries = new Map<string, Entry>();
  /** Copies of deleted objects that are still pinned. */
  private readonly doomed = new Map<string, Entry>();
  private readonly downloads = new Map<string, Download>();
  /** Every change of the file at one object's path runs under its path's lock. */
  private readonly fileOps = new KeyedMutex();
  /** Background work (unlinks, mtime refreshes) that close() waits for. */
  private readonly pending = new Set<Promise<void>>();
  private bytes = 0;
  private seq = 0;
  private closed = false;
  private counters = { hits: 0, misses: 0, downloads: 0, downloadedBytes: 0, evictions: 0, evictedBytes: 0 };

  private constructor(opts: FileCacheOptions) {
    this.dir = resolve(opts.dir);
    this.capacity = opts.capacity;
    this.store = opts.store;
    this.logger = opts.logger;
    this.partialDir = join(this.dir, PARTIAL);
    this.stagingDir = join(this.dir, STAGING);
  }

  /**
   * Opens the cache in `opts.dir`: wipes it when it holds another store's copies, discards partial
   * downloads and staged files, rebuilds the index from the files there and evicts to fit.
   */
  static async open(opts: FileCacheOptions): Promise<FileCache> {
    if (!Number.isFinite(opts.capacity) || opts.capacity < 0) {
      throw new TsdbError(StatusCode.InvalidArguments, `cache capacity must be a size of 0 bytes or more, got ${opts.capacity}`);
    }
    const cache = new FileCache(opts);
    try {
      await cache.load();
    } catch (err) {
      if (err instanceof TsdbError) throw err;
      throw new TsdbError(StatusCode.StorageUnavailable, `cannot open the file cache of ${opts.store.description} in ${cache.dir}: ${message(err)}`, { cause: err });
    }
    return cache;
  }

  private async load(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const marker = join(this.dir, MARKER);
    let recorded: string | undefined;
    try {
      recorded = await readFile(marker, 'utf8');
    } catch (err) {
      if (errno(err) !== 'ENOENT') throw err;
    }
    const names = await readdir(this.dir);
    if (recorded !== this.store.description && names.some((n) => n !== PARTIAL && n !== STAGING && n !== MARKER)) {
      this.logger.warn(
        { dir: this.dir, store: this.store.description, recorded: recorded ?? null },
        recorded === undefined
          ? 'file cache directory holds files of an unknown store; wiping it'
          : `file cache directory held copies of ${recorded}; wiping it`,
      );
    }
    if (recorded !== this.store.description) {
      for (const name of names) await rm(join(this.dir, name), { recursive: true, force: true });
    }
    await rm(this.partialDir, { recursive: true, force: true });
    await rm(this.stagingDir, { recursive: true, force: true });
    await mkdir(this.partialDir);
    await mkdir(this.stagingDir);
    if (recorded !== this.store.description) {
      const tmp = join(this.stagingDir, 'store');
      await writeFile(tmp, this.store.description);
      await rename(tmp, marker);
    }
    const found: { objectPath: string; size: number; mtimeMs: number }[] = [];
    await this.scan('', found);
    found.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.objectPath < b.objectPath ? -1 : 1));
    for (const f of found) {
      this.entries.set(f.objectPath, { objectPath: f.objectPath, size: f.size, pins: 0, state: 'live' });
      this.bytes += f.size;
    }
    this.logger.info({ dir: this.dir, store: this.store.description, files: found.length, bytes: this.bytes, capacity: this.capacity }, 'file cache opened');
    this.evictToFit();
  }

  /** Collects the copies under `rel` (a directory prefix, '' for the top); removes empty directories and anything that is not a copy. */
  private async scan(rel: string, found: { objectPath: string; size: number; mtimeMs: number }[]): Promise<number> {
    const abs = join(this.dir, rel);
    let kept = 0;
    for (const d of await readdir(abs, { withFileTypes: true })) {
      if (rel === '' && RESERVED.has(d.name)) continue;
      const objectPath = rel + d.name;
      const path = join(abs, d.name);
      if (d.isDirectory()) {
        if ((await this.scan(`${objectPath}/`, found)) === 0) await rmdir(path).catch(() => undefined);
        else kept++;
      } else if (d.isFile()) {
        const st = await stat(path);
        found.push({ objectPath, size: st.size, mtimeMs: st.mtimeMs });
        kept++;
      } else {
        await rm(path, { force: true });
      }
    }
    return kept;
  }

  /**
   * Pins the local copy of `objectPath`, downloading it on a miss. `size` is the object's size as
   * the manifest records it: a download (or a cached copy) of another size is an error naming the
   * object and the store (a cached copy of the wrong size is dropped and downloaded again, unless
   * something pins it). Concurrent pins of one object share one download. `signal` abandons this
   * caller's wait only (the shared download goes on for others, and is kept if it completes).
   */
  async pin(objectPath: string, size: number, signal?: AbortSignal): Promise<CachedFile> {
    this.checkPath(objectPath);
    this.checkOpen();
    signal?.throwIfAborted();
    const cached = this.entries.get(objectPath);
    if (cached !== undefined) {
      if (cached.size === size) {
        this.counters.hits++;
        this.touch(cached);
        return this.pinEntry(cached);
      }
      if (cached.pins > 0) {
        throw this.sizeError(objectPath, `its cached copy, in use, has ${cached.size} bytes where the manifest records ${size}`);
      }
      this.logger.warn({ object: objectPath, store: this.store.description, cached: cached.size, expected: size }, 'cached copy has the wrong size; downloading it again');
      this.discard(cached);
    }
    this.counters.misses++;
    const download = this.downloads.get(objectPath) ?? this.startDownload(objectPath, size);
    return new Promise<CachedFile>((resolvePin, rejectPin) => {
      const onAbort = (): void => {
        if (download.waiters.delete(waiter)) rejectPin(signal?.reason);
      };
      const waiter: Waiter = {
        size,
        resolve: (file) => {
          signal?.removeEventListener('abort', onAbort);
          resolvePin(file);
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort);
          rejectPin(err);
        },
      };
      download.waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** A fresh path in the cache's staging directory (same file system as the cache) where a caller writes a new file before `add`. */
  stagingPath(name: string): string {
    if (name === '' || name.includes('/') || name.includes('\0') || name === '.' || name === '..') {
      throw new TsdbError(StatusCode.InvalidArguments, `invalid staging file name "${name}" in the file cache of ${this.store.description}`);
    }
    return join(this.stagingDir, `${++this.seq}-${name}`);
  }

  /**
   * Write-through: `localFile` (a complete file, normally from stagingPath) becomes the cached copy
   * of `objectPath` (renamed into place; copied if on another file system), then the cache evicts
   * to fit. The new copy is the most recently used; it may be evicted at once if it alone exceeds
   * the capacity.
   */
  async add(objectPath: string, localFile: string): Promise<void> {
    this.checkPath(objectPath);
    this.checkOpen();
    let size: number;
    try {
      size = (await stat(localFile)).size;
    } catch (err) {
      throw this.localError(`cannot add ${localFile} as the copy of ${objectPath}`, err);
    }
    await this.fileOps.run(objectPath, async () => {
      try {
        await this.place(localFile, this.localPath(objectPath));
      } catch (err) {
        throw this.localError(`cannot add ${localFile} as the copy of ${objectPath}`, err);
      }
      this.install(objectPath, size, 'live');
    });
    this.evictToFit();
  }

  /** The object was deleted: drop its copy (a pinned copy goes at its last release; a download in flight is dropped when it lands). */
  async remove(objectPath: string): Promise<void> {
    this.checkPath(objectPath);
    this.checkOpen();
    const download = this.downloads.get(objectPath);
    if (download !== undefined) download.dropped = true;
    const entry = this.entries.get(objectPath);
    if (entry !== undefined) await this.drop(entry);
  }

  /** Same for every object under a prefix ending with '/'. */
  async removeAll(prefix: string): Promise<void> {
    this.checkPath(prefix, 'directory');
    this.checkOpen();
    for (const download of this.downloads.values()) if (download.objectPath.startsWith(prefix)) download.dropped = true;
    const dropped = [...this.entries.values()].filter((e) => e.objectPath.startsWith(prefix)).map((e) => this.drop(e));
    await Promise.all(dropped);
    await this.pruneEmpty(join(this.dir, prefix));
  }

  stats(): FileCacheStats {
    let pinned = 0;
    for (const e of this.entries.values()) if (e.pins > 0) pinned++;
    return {
      files: this.entries.size + this.doomed.size,
      bytes: this.bytes,
      capacity: this.capacity,
      pinned: pinned + this.doomed.size,
      ...this.counters,
    };
  }

  /**
   * Resolves once the downloads in flight and the background file work (removing the files of
   * evicted or released copies, refreshing mtimes) have ended — for tests and orderly shutdowns.
   */
  async idle(): Promise<void> {
    // Every download is tracked in `pending` until it has cleaned up after itself.
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /**
   * Aborts the downloads in flight (their waiters get an error saying the cache is closed), waits
   * for them and for pending file operations to end, then stops: pin, add and remove are refused
   * afterwards; release still unpins, and removes nothing more.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const downloads = [...this.downloads.values()];
    for (const d of downloads) d.controller.abort(this.closedError());
    await this.idle();
    // What the cache did while open (for operators sizing cache_capacity, and the benchmarks).
    this.logger.info({ dir: this.dir, store: this.store.description, ...this.stats() }, 'file cache closed');
  }

  // --- downloads

  private startDownload(objectPath: string, size: number): Download {
    const download: Download = {
      objectPath,
      size,
      waiters: new Set(),
      controller: new AbortController(),
      dropped: false,
      done: Promise.resolve(),
    };
    this.downloads.set(objectPath, download);
    this.counters.downloads++;
    download.done = this.runDownload(download).finally(() => this.settled(download));
    this.track(download.done);
    return download;
  }

  /**
   * The download takes no more waiters: called just before its waiters are told the outcome, so
   * that a waiter that pins again at once finds the copy, or starts a download of its own, rather
   * than joining one that will never answer it.
   */
  private settled(download: Download): void {
    if (this.downloads.get(download.objectPath) === download) this.downloads.delete(download.objectPath);
  }

  /** Never rejects: its outcome goes to the waiters. */
  private async runDownload(download: Download): Promise<void> {
    const { objectPath } = download;
    const partial = join(this.partialDir, `${++this.seq}.part`);
    try {
      // Let the pin that started it register as a waiter before anything can settle.
      await Promise.resolve();
      let actual: number;
      try {
        await this.store.download(objectPath, partial, download.controller.signal);
        actual = (await stat(partial)).size;
      } catch (err) {
        throw this.downloadError(download, err);
      }
      const wanted = actual === download.size || [...download.waiters].some((w) => w.size === actual);
      if (!wanted) {
        throw this.sizeError(objectPath, `its download has ${actual} bytes where the manifest records ${download.size}`);
      }
      this.counters.downloadedBytes += actual;
      await this.fileOps.run(objectPath, async () => {
        if (download.controller.signal.aborted) throw this.closedError();
        let entry: Entry | undefined;
        let placed = false;
        if (!download.dropped || download.waiters.size > 0) {
          const current = this.entries.get(objectPath);
          if (current !== undefined && current.size === actual) {
            // Added meanwhile (write-through): the copy there is the same object.
            entry = current;
          } else {
            try {
              await this.place(partial, this.localPath(objectPath));
            } catch (err) {
              throw this.localError(`cannot place the download of ${objectPath}`, err);
            }
            placed = true;
            entry = this.install(objectPath, actual, download.dropped ? 'doomed' : 'live');
          }
        }
        // Synchronously from the choice of `entry`: every waiter still there is pinned before
        // anything can evict it.
        this.settled(download);
        for (const waiter of [...download.waiters]) {
          download.waiters.delete(waiter);
          if (entry === undefined) continue;
          if (waiter.size === actual) waiter.resolve(this.pinEntry(entry));
          else waiter.reject(this.sizeError(objectPath, `its download has ${actual} bytes where the manifest records ${waiter.size}`));
        }
        if (!placed) await rm(partial, { force: true });
        if (entry !== undefined && entry.state === 'doomed' && entry.pins === 0) await this.unlinkNow(entry);
      });
      this.evictToFit();
    } catch (err) {
      this.settled(download);
      for (const waiter of [...download.waiters]) {
        download.waiters.delete(waiter);
        waiter.reject(err);
      }
      await rm(partial, { force: true }).catch(() => undefined);
      this.logger.debug({ object: objectPath, store: this.store.description, err: message(err) }, 'file cache download failed');
    }
  }

  private downloadError(download: Download, err: unknown): unknown {
    if (download.controller.signal.aborted) return this.closedError();
    if (err instanceof ObjectNotFoundError) {
      return new TsdbError(
        StatusCode.StorageUnavailable,
        `object ${download.objectPath} is missing from ${this.store.description} (the manifest lists it: it was deleted or never uploaded)`,
        { cause: err },
      );
    }
    if (err instanceof TsdbError) return err;
    return this.localError(`download of ${download.objectPath} failed`, err);
  }

  // --- the index

  /** Makes the file now at the object's path the live (or doomed) copy; replaces the copy there before. Under the path's lock. */
  private install(objectPath: string, size: number, state: 'live' | 'doomed'): Entry {
    const old = this.entries.get(objectPath) ?? this.doomed.get(objectPath);
    const entry: Entry = { objectPath, size, pins: 0, state };
    if (old !== undefined) {
      this.detach(old);
      // Its holders read the new file now (the same object): it keeps their pins.
      entry.pins = old.pins;
      old.pins = 0;
      if (entry.pins > 0) old.successor = entry;
    }
    (state === 'live' ? this.entries : this.doomed).set(objectPath, entry);
    this.bytes += size;
    return entry;
  }

  /** Takes the copy out of the index (its file is either gone or about to be). */
  private detach(entry: Entry): void {
    if (entry.state === 'gone') return;
    if (entry.state === 'live') this.entries.delete(entry.objectPath);
    else this.doomed.delete(entry.objectPath);
    entry.state = 'gone';
    this.bytes -= entry.size;
  }

  private pinEntry(entry: Entry): CachedFile {
    entry.pins++;
    return new Pin(this.localPath(entry.objectPath), entry, (e) => this.unpin(e));
  }

  private unpin(pinned: Entry): void {
    let entry = pinned;
    while (entry.successor !== undefined) entry = entry.successor;
    entry.pins--;
    if (entry.pins > 0 || this.closed) return;
    if (entry.state === 'doomed') this.track(this.unlink(entry));
    else if (entry.state === 'live') this.evictToFit();
  }

  /** A hit: most recently used, and its mtime says so after a restart. */
  private touch(entry: Entry): void {
    this.entries.delete(entry.objectPath);
    this.entries.set(entry.objectPath, entry);
    const now = new Date();
    this.track(utimes(this.localPath(entry.objectPath), now, now).catch(() => undefined));
  }

  /** Removes least recently used unpinned copies until the bytes fit in the capacity. */
  private evictToFit(): void {
    if (this.closed || this.bytes <= this.capacity) return;
    for (const entry of this.entries.values()) {
      if (this.bytes <= this.capacity) break;
      if (entry.pins > 0) continue;
      this.counters.evictions++;
      this.counters.evictedBytes += entry.size;
      this.logger.debug({ object: entry.objectPath, bytes: entry.size }, 'file cache evicts a copy');
      this.discard(entry);
    }
  }

  /** Drops an unpinned copy now (its file is removed in the background, in order with other changes of its path). */
  private discard(entry: Entry): void {
    this.track(this.unlink(entry));
  }

  /** The object was deleted: an unpinned copy goes now, a pinned one at its last release. */
  private async drop(entry: Entry): Promise<void> {
    if (entry.pins > 0) {
      this.entries.delete(entry.objectPath);
      entry.state = 'doomed';
      const old = this.doomed.get(entry.objectPath);
      if (old !== undefined) this.detach(old);
      this.doomed.set(entry.objectPath, entry);
      return;
    }
    await this.unlink(entry);
  }

  /** Detaches the copy now and removes its file under its path's lock, unless a newer copy took the path meanwhile. */
  private async unlink(entry: Entry): Promise<void> {
    this.detach(entry);
    await this.fileOps.run(entry.objectPath, () => this.unlinkNow(entry));
  }

  /** Under the path's lock. */
  private async unlinkNow(entry: Entry): Promise<void> {
    this.detach(entry);
    const claimant = this.entries.get(entry.objectPath) ?? this.doomed.get(entry.objectPath);
    if (claimant !== undefined) return;
    const path = this.localPath(entry.objectPath);
    try {
      await rm(path, { force: true });
    } catch (err) {
      this.logger.warn({ object: entry.objectPath, dir: this.dir, err: message(err) }, 'file cache cannot remove a copy');
      return;
    }
    // Its directories, once empty (a placement that loses its directory to this retries).
    for (let parent = dirname(path); parent !== this.dir && parent.startsWith(this.dir); parent = dirname(parent)) {
      try {
        await rmdir(parent);
      } catch {
        break;
      }
    }
  }

  // --- files

  private localPath(objectPath: string): string {
    return join(this.dir, objectPath);
  }

  /** Moves `src` to `dest`, creating its directory; copies through the staging directory across file systems. */
  private async place(src: string, dest: string): Promise<void> {
    let copy: string | undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        await mkdir(dirname(dest), { recursive: true });
        if (copy === undefined) {
          await rename(src, dest);
          return;
        }
        await copyFile(src, copy);
        await rename(copy, dest);
        await rm(src, { force: true });
        return;
      } catch (err) {
        if (copy !== undefined) await rm(copy, { force: true });
        // A directory on the way was pruned meanwhile (the last copy in it went): again.
        if (errno(err) === 'ENOENT' && attempt < PLACE_ATTEMPTS && existsSync(src)) continue;
        if (errno(err) === 'EXDEV' && copy === undefined) {
          copy = join(this.stagingDir, `${++this.seq}.copy`);
          continue;
        }
        throw err;
      }
    }
  }

  /** Removes the empty directories at and under `abs` (best effort; never the cache's own). */
  private async pruneEmpty(abs: string): Promise<boolean> {
    let names;
    try {
      names = await readdir(abs, { withFileTypes: true });
    } catch {
      return false;
    }
    let empty = true;
    for (const d of names) {
      if (!d.isDirectory() || !(await this.pruneEmpty(join(abs, d.name)))) empty = false;
    }
    if (!empty || abs === this.dir) return false;
    return rmdir(abs).then(
      () => true,
      () => false,
    );
  }

  private track(work: Promise<void>): void {
    const p = work.catch((err: unknown) => {
      this.logger.warn({ dir: this.dir, err: message(err) }, 'file cache background work failed');
    });
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  // --- checks and errors

  private checkPath(path: string, kind: 'object' | 'directory' = 'object'): void {
    const where = `the file cache of ${this.store.description}`;
    checkObjectPath(path, kind, where);
    const first = path.split('/', 1)[0] ?? '';
    if (RESERVED.has(first)) {
      const what = kind === 'object' ? 'object path' : 'path prefix';
      throw new TsdbError(StatusCode.InvalidArguments, `invalid ${what} "${path}" in ${where}: "${first}" is the cache's own name`);
    }
  }

  private checkOpen(): void {
    if (this.closed) throw this.closedError();
  }

  private closedError(): TsdbError {
    return new TsdbError(StatusCode.StorageUnavailable, `the file cache of ${this.store.description} in ${this.dir} is closed`);
  }

  private sizeError(objectPath: string, what: string): TsdbError {
    return new TsdbError(StatusCode.StorageUnavailable, `object ${objectPath} in ${this.store.description} has the wrong size: ${what}`);
  }

  private localError(what: string, err: unknown): TsdbError {
    return new TsdbError(
      StatusCode.StorageUnavailable,
      `file cache of ${this.store.description} in ${this.dir}: ${what}: ${message(err)}`,
      { cause: err },
    );
  }
}
